//! A material's images read into memory at load ([`MaterialMaps::read`]),
//! so that what draws them holds bytes, not files: the GPU upload decodes
//! [`ImageBytes`] and opens nothing.

use std::sync::Arc;

use super::decode::cannot_use;
use super::{ImageSource, MapKind, MaterialImages};

/// An image file's bytes, read once, with what decoding them needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageBytes {
    /// The file it was read from, for messages and debug names.
    pub file: String,
    /// Its extension in lower case: the format of a file without a
    /// signature (TGA).
    pub extension: String,
    /// A height map's bump scale: the normal map is derived from it at
    /// decode time ([`super::normals_from_heights`]).
    pub height_scale: Option<f32>,
    pub bytes: Arc<[u8]>,
}

impl ImageBytes {
    /// The image `source` names, read. Errors say what went wrong, not
    /// which file.
    pub fn read(source: &ImageSource) -> std::io::Result<ImageBytes> {
        let file = source.file();
        Ok(ImageBytes {
            file: file.to_string(),
            extension: file.extension(),
            height_scale: match source {
                ImageSource::File(_) => None,
                ImageSource::HeightMap { scale, .. } => Some(*scale),
            },
            bytes: file.read()?.into(),
        })
    }
}

/// A material's three maps, read. A map that is `None` (not named, not
/// found or not readable) is drawn with its kind's default texel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialMaps {
    pub diffuse: Option<ImageBytes>,
    pub normal: Option<ImageBytes>,
    pub specular: Option<ImageBytes>,
}

impl MaterialMaps {
    /// Reads the images `images` found. A file that cannot be read is its
    /// kind's default and a warning, added to `warnings` for the caller to
    /// log.
    pub fn read(images: &MaterialImages, warnings: &mut Vec<String>) -> MaterialMaps {
        let mut read = |kind: MapKind| {
            let source = images.get(kind)?;
            ImageBytes::read(source)
                .map_err(|error| warnings.push(cannot_use(source.file(), kind, error)))
                .ok()
        };
        MaterialMaps {
            diffuse: read(MapKind::Diffuse),
            normal: read(MapKind::Normal),
            specular: read(MapKind::Specular),
        }
    }

    pub fn get(&self, kind: MapKind) -> Option<&ImageBytes> {
        match kind {
            MapKind::Diffuse => self.diffuse.as_ref(),
            MapKind::Normal => self.normal.as_ref(),
            MapKind::Specular => self.specular.as_ref(),
        }
    }
}
