//! DDS files written byte by byte, as the DirectX SDK documents them (a
//! "DDS " magic, a 124-byte header, its 32-byte pixel format, then the
//! levels): what NVIDIA's and id's tools wrote, built here without
//! md5crowd's code or `ddsfile`.

/// How the texels are stored.
#[derive(Clone, Copy)]
pub enum PixelFormat {
    /// A FourCC: `*b"DXT1"`, `*b"DXT3"`, `*b"DXT5"`, `*b"RXGB"`...
    FourCc([u8; 4]),
    /// Uncompressed: bits a texel, then the R, G, B, A masks (A 0: none).
    Masks(u32, [u32; 4]),
}

const DDSD_CAPS: u32 = 0x1;
const DDSD_HEIGHT: u32 = 0x2;
const DDSD_WIDTH: u32 = 0x4;
const DDSD_PITCH: u32 = 0x8;
const DDSD_PIXELFORMAT: u32 = 0x1000;
const DDSD_MIPMAPCOUNT: u32 = 0x2_0000;
const DDSD_LINEARSIZE: u32 = 0x8_0000;
const DDPF_ALPHAPIXELS: u32 = 0x1;
const DDPF_FOURCC: u32 = 0x4;
const DDPF_RGB: u32 = 0x40;
const DDSCAPS_COMPLEX: u32 = 0x8;
const DDSCAPS_TEXTURE: u32 = 0x1000;
const DDSCAPS_MIPMAP: u32 = 0x40_0000;

/// A DDS file's header for a `width` x `height` image of `mips` levels
/// (1: no mip count written), then `data` (the levels, level 0 first).
pub fn dds_file(width: u32, height: u32, mips: u32, format: PixelFormat, data: &[u8]) -> Vec<u8> {
    let mut flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT;
    let mut caps = DDSCAPS_TEXTURE;
    if mips > 1 {
        flags |= DDSD_MIPMAPCOUNT;
        caps |= DDSCAPS_COMPLEX | DDSCAPS_MIPMAP;
    }
    let (pitch_or_size, pixel_format) = match format {
        PixelFormat::FourCc(code) => {
            flags |= DDSD_LINEARSIZE;
            let block = if &code == b"DXT1" { 8 } else { 16 };
            let size = width.div_ceil(4) * height.div_ceil(4) * block;
            let mut pf = words(&[32, DDPF_FOURCC]);
            pf.extend_from_slice(&code);
            pf.extend(words(&[0; 5]));
            (size, pf)
        }
        PixelFormat::Masks(bits, [r, g, b, a]) => {
            flags |= DDSD_PITCH;
            let pf_flags = DDPF_RGB | if a != 0 { DDPF_ALPHAPIXELS } else { 0 };
            let pf = words(&[32, pf_flags, 0, bits, r, g, b, a]);
            (width * bits / 8, pf)
        }
    };
    let mut file = b"DDS ".to_vec();
    file.extend(words(&[124, flags, height, width, pitch_or_size, 0, mips]));
    file.extend(words(&[0; 11]));
    file.extend(pixel_format);
    file.extend(words(&[caps, 0, 0, 0, 0]));
    assert_eq!(file.len(), 4 + 124);
    file.extend_from_slice(data);
    file
}

fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// An RGB565 colour.
pub fn rgb565(r: u8, g: u8, b: u8) -> u16 {
    (u16::from(r >> 3) << 11) | (u16::from(g >> 2) << 5) | u16::from(b >> 3)
}

/// A BC1 (DXT1) colour block: endpoints `c0`, `c1` (RGB565) and the 2-bit
/// index of each of its 16 texels, row by row.
pub fn bc1_block(c0: u16, c1: u16, indices: [u8; 16]) -> [u8; 8] {
    let mut block = [0; 8];
    block[..2].copy_from_slice(&c0.to_le_bytes());
    block[2..4].copy_from_slice(&c1.to_le_bytes());
    for (row, chunk) in indices.chunks(4).enumerate() {
        block[4 + row] = chunk
            .iter()
            .enumerate()
            .fold(0, |byte, (i, &index)| byte | (index & 3) << (2 * i));
    }
    block
}

/// A BC3 (DXT5) alpha block: endpoints `a0`, `a1` and the 3-bit index of
/// each of its 16 texels, row by row.
pub fn bc3_alpha_block(a0: u8, a1: u8, indices: [u8; 16]) -> [u8; 8] {
    let bits = indices.iter().enumerate().fold(0u64, |bits, (i, &index)| {
        bits | u64::from(index & 7) << (3 * i)
    });
    let mut block = [0; 8];
    block[0] = a0;
    block[1] = a1;
    block[2..].copy_from_slice(&bits.to_le_bytes()[..6]);
    block
}

/// A BC1 block of one colour (both endpoints it, every index 0).
pub fn bc1_solid(colour: u16) -> [u8; 8] {
    bc1_block(colour, colour, [0; 16])
}
