//! Free address ranges kept in an ordered map, shared by the providers and the page map.

use std::collections::BTreeMap;

use crate::provider::Addr;

/// Takes `bytes` aligned to `align` from the first range that can hold them, leaving the
/// rest of that range in the map.
pub(crate) fn take_first_fit(
    ranges: &mut BTreeMap<Addr, u64>,
    bytes: u64,
    align: u64,
) -> Option<Addr> {
    let (start, len, at) = ranges.iter().find_map(|(&start, &len)| {
        let at = start.next_multiple_of(align);
        (at + bytes <= start + len).then_some((start, len, at))
    })?;
    ranges.remove(&start);
    if at > start {
        ranges.insert(start, at - start);
    }
    if at + bytes < start + len {
        ranges.insert(at + bytes, start + len - at - bytes);
    }
    Some(at)
}

/// Adds a range, merging it with neighbours that touch it.
pub(crate) fn insert_coalesced(ranges: &mut BTreeMap<Addr, u64>, addr: Addr, bytes: u64) {
    let (mut start, mut end) = (addr, addr + bytes);
    if let Some((&prev, &len)) = ranges.range(..addr).next_back() {
        if prev + len == addr {
            ranges.remove(&prev);
            start = prev;
        }
    }
    if let Some(len) = ranges.remove(&end) {
        end += len;
    }
    ranges.insert(start, end - start);
}
