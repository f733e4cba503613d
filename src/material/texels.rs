//! A map as the GPU takes it: its levels' bytes and their format. A DDS
//! file's blocks stay blocks where the device samples block-compressed
//! images, with the file's own mip levels; elsewhere every level is
//! decoded here. Any other image is one RGBA8 level whose mips the
//! uploader makes.

use super::dds::{self, DdsImage, DdsTexels};
use super::decode::{cannot_decode, decode_bytes, fit_within, warn, DecodedImage};
use super::{ImageBytes, MapKind, TexelTransform};

/// The levels of one map.
#[derive(Clone, Debug, PartialEq)]
pub struct MapTexels {
    pub width: u32,
    pub height: u32,
    pub texels: DdsTexels,
    /// Blocks of an RXGB file: the sampled red is the stored alpha (and
    /// alpha is opaque).
    pub red_in_alpha: bool,
    /// Level 0 first, each half the size of the one before (at least 1).
    /// A single RGBA8 level gets its mips from the uploader.
    pub levels: Vec<Vec<u8>>,
    /// Whether this is the kind's stand-in for a missing or broken map.
    pub is_default: bool,
    /// What went wrong or was changed (already logged).
    pub warnings: Vec<String>,
}

impl From<DecodedImage> for MapTexels {
    fn from(decoded: DecodedImage) -> MapTexels {
        MapTexels {
            width: decoded.width,
            height: decoded.height,
            texels: DdsTexels::Rgba8,
            red_in_alpha: false,
            levels: vec![decoded.rgba],
            is_default: decoded.is_default,
            warnings: decoded.warnings,
        }
    }
}

/// The map `image` holds as `kind` (its default when `None`), no level
/// larger than `max_dimension`. With `blocks` (the device samples BC1-3
/// images), a DDS file's blocks are kept. Never fails: problems are
/// warnings, as in [`super::decode_image`].
pub fn map_texels(
    image: Option<&ImageBytes>,
    kind: MapKind,
    max_dimension: u32,
    blocks: bool,
) -> MapTexels {
    let Some(image) = image else {
        return DecodedImage::default_for(kind).into();
    };
    let file = &image.file;
    if image.transform == TexelTransform::None && dds::is_dds(&image.bytes) {
        let dds = match dds::parse_dds(&image.bytes) {
            Ok(dds) => dds,
            Err(error) => return cannot_decode(file, kind, error).into(),
        };
        let mut warnings = Vec::new();
        for warning in &dds.warnings {
            warn(&mut warnings, format!("{file}: {warning}"));
        }
        // None fits: level 0 is decoded and scaled down below.
        if let Some(first) = first_fitting_level(&dds, max_dimension) {
            if first > 0 {
                let (width, height) = dds.level_extent(first);
                warn(
                    &mut warnings,
                    format!(
                        "{file}: {}x{} is larger than the device's \
                         {max_dimension}x{max_dimension} limit; starting at its mip level \
                         {first} ({width}x{height})",
                        dds.width, dds.height
                    ),
                );
            }
            return MapTexels {
                warnings,
                ..dds_levels(&dds, first, blocks)
            };
        }
    }
    decode_bytes(image, kind, max_dimension).into()
}

/// The first of the DDS's levels no larger than `max_dimension`.
fn first_fitting_level(image: &DdsImage, max_dimension: u32) -> Option<usize> {
    (0..image.levels.len()).find(|&level| {
        let (width, height) = image.level_extent(level);
        fit_within(width, height, max_dimension) == (width, height)
    })
}

/// The DDS's levels from `first` on: its blocks when `blocks` allows,
/// else decoded.
fn dds_levels(image: &DdsImage, first: usize, blocks: bool) -> MapTexels {
    let (width, height) = image.level_extent(first);
    let keep_blocks = blocks && matches!(image.texels, DdsTexels::Blocks(_));
    let levels: Vec<Vec<u8>> = if keep_blocks {
        image.levels[first..].to_vec()
    } else {
        (first..image.levels.len())
            .map(|level| image.decode_level(level))
            .collect()
    };
    MapTexels {
        width,
        height,
        texels: if keep_blocks {
            image.texels
        } else {
            DdsTexels::Rgba8
        },
        red_in_alpha: keep_blocks && image.red_in_alpha,
        levels,
        is_default: false,
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_map_is_its_kind_default_texel() {
        let normal = map_texels(None, MapKind::Normal, 16, true);
        assert_eq!((normal.width, normal.height), (1, 1));
        assert_eq!(normal.levels, [vec![128, 128, 255, 255]]);
        assert_eq!(normal.texels, DdsTexels::Rgba8);
        assert!(normal.is_default && normal.warnings.is_empty());
    }
}
