use std::fmt;

/// Bad glTF input: the file, where in it (a JSON path such as
/// `accessors[3]` or `skins[0].joints[2]`; empty for the whole file) and
/// what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct GltfError {
    pub file: String,
    pub path: String,
    pub message: String,
}

impl GltfError {
    pub fn new(file: &str, path: impl Into<String>, message: impl Into<String>) -> GltfError {
        GltfError {
            file: file.to_owned(),
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for GltfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.path, self.message)
        }
    }
}
