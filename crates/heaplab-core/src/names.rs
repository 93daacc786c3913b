//! The name a mistyped one most likely meant, for the "did you mean" of an unknown policy,
//! preset or workload. Each list heaplab refuses a name from is its registry, so the
//! suggestion comes from the same list the message goes on to name.

/// The one of `names` that `typed` most likely meant: the shortest that starts with it
/// (`mimalloc` for `mimalloc-like`), else the nearest by edit distance (a swap of two
/// letters counting as one edit) when that is at most a third of its length, so a typo
/// is matched and another word is not. Case is ignored; none when nothing is that close.
pub fn closest<'a>(typed: &str, names: &[&'a str]) -> Option<&'a str> {
    let typed = typed.to_lowercase();
    if typed.len() >= 3 {
        let started = names
            .iter()
            .filter(|n| n.to_lowercase().starts_with(&typed))
            .min_by_key(|n| n.len());
        if let Some(name) = started {
            return Some(name);
        }
    }
    names
        .iter()
        .map(|n| (strsim::osa_distance(&typed, &n.to_lowercase()), *n))
        .filter(|&(d, n)| d > 0 && d <= (n.chars().count() / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n)
}

/// ` (did you mean "name"?)` for the closest of `names` to `typed`, or nothing, to follow
/// the quoted name in an "unknown ..." message.
pub fn did_you_mean(typed: &str, names: &[&str]) -> String {
    closest(typed, names)
        .map(|n| format!(" (did you mean {n:?}?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 6] = [
        "glibc-like",
        "mimalloc-like",
        "jemalloc-like",
        "churn",
        "tree_churn",
        "buddy",
    ];

    #[test]
    fn a_prefix_or_a_typo_finds_the_name_and_another_word_does_not() {
        assert_eq!(closest("mimalloc", &NAMES), Some("mimalloc-like"));
        assert_eq!(closest("Glibc", &NAMES), Some("glibc-like"));
        assert_eq!(closest("chrun", &NAMES), Some("churn"));
        assert_eq!(closest("jemaloc-like", &NAMES), Some("jemalloc-like"));
        assert_eq!(closest("bdy", &NAMES), None);
        assert_eq!(closest("nope", &NAMES), None);
        assert_eq!(closest("", &NAMES), None);
        assert_eq!(
            did_you_mean("mimalloc", &NAMES),
            " (did you mean \"mimalloc-like\"?)"
        );
        assert_eq!(did_you_mean("tcmalloc", &["bump"]), "");
    }
}
