//! DDS images, as id Tech 4 games ship their textures precompressed under
//! `dds/`: DXT1, DXT3 and DXT5 (BC1, BC2, BC3 blocks), RXGB (Doom 3's
//! normal maps: DXT5 with red moved to alpha, whose block of 8-bit
//! endpoints and 8 steps keeps it finer than the colour block's 5-bit red
//! and 4 steps), the same three as DX10-header files, and uncompressed
//! RGB(A), luminance and alpha described by channel masks; each with the
//! mip levels the file holds. The header is read by `ddsfile`; every
//! level's size is checked against what the file holds before it is
//! copied, so a header cannot make a large allocation.

use ddsfile::{Caps2, Dds, DxgiFormat, FourCC, PixelFormatFlags};

/// A block-compressed format: 4x4 texels in 8 (BC1) or 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockFormat {
    /// DXT1: two RGB565 endpoints and 2-bit indices; 1-bit alpha.
    Bc1,
    /// DXT3: BC1's colour block after 4-bit explicit alpha.
    Bc2,
    /// DXT5: BC1's colour block after an interpolated alpha block.
    Bc3,
}

impl BlockFormat {
    pub fn block_bytes(self) -> usize {
        match self {
            BlockFormat::Bc1 => 8,
            BlockFormat::Bc2 | BlockFormat::Bc3 => 16,
        }
    }

    fn texpresso(self) -> texpresso::Format {
        match self {
            BlockFormat::Bc1 => texpresso::Format::Bc1,
            BlockFormat::Bc2 => texpresso::Format::Bc2,
            BlockFormat::Bc3 => texpresso::Format::Bc3,
        }
    }
}

/// How a level's bytes hold its texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DdsTexels {
    Blocks(BlockFormat),
    /// Four bytes a texel, R G B A, rows top first (uncompressed files are
    /// converted to this when read).
    Rgba8,
}

/// A parsed DDS file.
#[derive(Clone, Debug, PartialEq)]
pub struct DdsImage {
    pub width: u32,
    pub height: u32,
    pub texels: DdsTexels,
    /// RXGB: the texel's red is stored in alpha (and the stored red is
    /// unused). [`DdsImage::decode_level`] moves it back; a GPU upload of
    /// the blocks swizzles it in the image view.
    pub red_in_alpha: bool,
    /// Level 0 first, each `level_extent(i)` texels in `texels`' layout.
    pub levels: Vec<Vec<u8>>,
    /// What was wrong but left the image usable: levels missing from the
    /// end of the file.
    pub warnings: Vec<String>,
}

impl DdsImage {
    /// Texels across and down level `level`.
    pub fn level_extent(&self, level: usize) -> (u32, u32) {
        level_extent(self.width, self.height, level)
    }

    /// Level `level` as RGBA8 texels, rows top first, red back in its
    /// place for RXGB (alpha then opaque): what the GPU samples from the
    /// uploaded blocks.
    pub fn decode_level(&self, level: usize) -> Vec<u8> {
        let (width, height) = self.level_extent(level);
        let bytes = &self.levels[level];
        let mut rgba = match self.texels {
            DdsTexels::Rgba8 => bytes.clone(),
            DdsTexels::Blocks(format) => {
                let mut rgba = vec![0; width as usize * height as usize * 4];
                format
                    .texpresso()
                    .decompress(bytes, width as usize, height as usize, &mut rgba);
                rgba
            }
        };
        if self.red_in_alpha {
            for texel in rgba.chunks_exact_mut(4) {
                texel[0] = texel[3];
                texel[3] = 255;
            }
        }
        rgba
    }
}

fn level_extent(width: u32, height: u32, level: usize) -> (u32, u32) {
    let shift = level.min(31) as u32;
    ((width >> shift).max(1), (height >> shift).max(1))
}

/// Whether `bytes` start as a DDS file does.
pub fn is_dds(bytes: &[u8]) -> bool {
    bytes.starts_with(b"DDS ")
}

/// Parses a DDS file. An error says what is wrong or unsupported; levels
/// missing after the first are a warning in the result.
pub fn parse_dds(bytes: &[u8]) -> Result<DdsImage, String> {
    let dds = Dds::read(bytes).map_err(|e| format!("not a readable DDS file ({e})"))?;
    let header = &dds.header;
    let (width, height) = (header.width, header.height);
    if width == 0 || height == 0 {
        return Err(format!("a {width}x{height} image"));
    }
    if header.caps2.contains(Caps2::CUBEMAP) || header.caps2.contains(Caps2::VOLUME) {
        return Err("a cube map or volume texture; only 2D images are supported".to_owned());
    }
    let (layout, red_in_alpha) = pixel_layout(&dds, bytes)?;
    let full_chain = 32 - width.max(height).leading_zeros() as usize;
    let declared = header
        .mip_map_count
        .map_or(1, |count| count as usize)
        .clamp(1, full_chain);
    let data = dds.data.as_slice();
    let mut levels = Vec::new();
    let mut warnings = Vec::new();
    let mut offset = 0usize;
    for level in 0..declared {
        let (w, h) = level_extent(width, height, level);
        let size = match layout {
            Layout::Blocks(format) => {
                u64::from(w.div_ceil(4)) * u64::from(h.div_ceil(4)) * format.block_bytes() as u64
            }
            Layout::Masked(masks) => u64::from(w) * u64::from(h) * masks.bytes as u64,
        };
        let available = (data.len() - offset) as u64;
        if size > available {
            if level == 0 {
                return Err(format!(
                    "truncated: its {width}x{height} first level needs {size} bytes, the file \
                     holds {available} after the header"
                ));
            }
            warnings.push(format!(
                "truncated after {level} of its {declared} mip levels; using those"
            ));
            break;
        }
        let level_bytes = &data[offset..offset + size as usize];
        offset += size as usize;
        levels.push(match layout {
            Layout::Blocks(_) => level_bytes.to_vec(),
            Layout::Masked(masks) => masks.to_rgba(level_bytes),
        });
    }
    Ok(DdsImage {
        width,
        height,
        texels: match layout {
            Layout::Blocks(format) => DdsTexels::Blocks(format),
            Layout::Masked(_) => DdsTexels::Rgba8,
        },
        red_in_alpha,
        levels,
        warnings,
    })
}

/// How the file stores texels.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Blocks(BlockFormat),
    /// Uncompressed, converted to RGBA8 when read.
    Masked(Masks),
}

/// The file's texel layout, and whether red is in alpha; `bytes` is the
/// whole file, whose header `dds` holds.
fn pixel_layout(dds: &Dds, bytes: &[u8]) -> Result<(Layout, bool), String> {
    const RXGB: u32 = u32::from_le_bytes(*b"RXGB");
    let format = &dds.header.spf;
    if let Some(header10) = &dds.header10 {
        if header10.array_size > 1 {
            return Err(format!("an array of {} images", header10.array_size));
        }
        let blocks = match header10.dxgi_format {
            DxgiFormat::BC1_UNorm | DxgiFormat::BC1_UNorm_sRGB => BlockFormat::Bc1,
            DxgiFormat::BC2_UNorm | DxgiFormat::BC2_UNorm_sRGB => BlockFormat::Bc2,
            DxgiFormat::BC3_UNorm | DxgiFormat::BC3_UNorm_sRGB => BlockFormat::Bc3,
            other => return Err(format!("DXGI format {other:?} is not supported")),
        };
        return Ok((Layout::Blocks(blocks), false));
    }
    if let Some(FourCC(code)) = &format.fourcc {
        let blocks = match *code {
            FourCC::DXT1 => BlockFormat::Bc1,
            FourCC::DXT3 => BlockFormat::Bc2,
            FourCC::DXT5 | RXGB => BlockFormat::Bc3,
            other => {
                return Err(format!(
                    "FourCC {:?} is not supported (DXT1, DXT3, DXT5, RXGB are)",
                    String::from_utf8_lossy(&other.to_le_bytes())
                ))
            }
        };
        return Ok((Layout::Blocks(blocks), *code == RXGB));
    }
    // `ddsfile` leaves out the bit count and masks of luminance and
    // alpha-only formats; they are at fixed places of the pixel format.
    let word = |offset: usize| {
        bytes
            .get(offset..offset + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let [bits, red, green, blue, alpha] = [88, 92, 96, 100, 104].map(word);
    if !matches!(bits, 8 | 16 | 24 | 32) {
        return Err(format!("{bits} bits a texel is not supported"));
    }
    let flags = format.flags;
    let alpha = if flags.intersects(PixelFormatFlags::ALPHA_PIXELS | PixelFormatFlags::ALPHA) {
        alpha
    } else {
        0
    };
    let rgb = if flags.contains(PixelFormatFlags::RGB) {
        [red, green, blue]
    } else if flags.contains(PixelFormatFlags::LUMINANCE) {
        [red; 3]
    } else if flags.contains(PixelFormatFlags::ALPHA) {
        [0; 3]
    } else {
        return Err("neither compressed nor RGB, luminance or alpha".to_owned());
    };
    let masks = Masks {
        rgb,
        alpha,
        bytes: bits as usize / 8,
    };
    Ok((Layout::Masked(masks), false))
}

/// An uncompressed texel: `bytes` little-endian bytes, each channel where
/// its mask says (no mask: 0 for a colour, opaque for alpha).
#[derive(Clone, Copy, Debug)]
struct Masks {
    rgb: [u32; 3],
    alpha: u32,
    bytes: usize,
}

impl Masks {
    fn to_rgba(self, level: &[u8]) -> Vec<u8> {
        let mut rgba = Vec::with_capacity(level.len() / self.bytes * 4);
        for texel in level.chunks_exact(self.bytes) {
            let value = texel
                .iter()
                .rev()
                .fold(0u32, |v, &byte| (v << 8) | u32::from(byte));
            for mask in self.rgb {
                rgba.push(channel(value, mask).unwrap_or(0));
            }
            rgba.push(channel(value, self.alpha).unwrap_or(255));
        }
        rgba
    }
}

/// The bits of `value` under `mask`, scaled to 0..=255.
fn channel(value: u32, mask: u32) -> Option<u8> {
    if mask == 0 {
        return None;
    }
    let shift = mask.trailing_zeros();
    let max = u64::from(mask >> shift);
    let bits = u64::from((value & mask) >> shift);
    Some(((bits * 255 + max / 2) / max) as u8)
}
