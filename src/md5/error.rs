//! Errors that point at the offending byte: `file:line:column: message`.

use std::fmt;

/// A 1-based line and column (columns count characters, tabs as one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Md5Error {
    /// The file name as the user gave it (or a label for in-memory text).
    pub file: String,
    /// Where the problem is; `None` for whole-file problems such as a mesh and
    /// an anim whose skeletons disagree.
    pub location: Option<Location>,
    pub message: String,
}

impl fmt::Display for Md5Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some(Location { line, column }) => {
                write!(f, "{}:{}:{}: {}", self.file, line, column, self.message)
            }
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}
