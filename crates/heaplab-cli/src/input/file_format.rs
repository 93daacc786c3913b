//! Which syntax a config or policy file is read in. Both `config` and `policy` read
//! files, so the rule lives here, below them both, rather than in one of them.

use std::path::Path;

/// Whether a file is read as TOML rather than JSON: by its extension.
pub fn is_toml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}
