//! A 3x5 pixel font: just the characters the textures label cells with.
//! Every glyph is asymmetric in some direction, so a mirrored or flipped
//! texture lookup shows.

/// Rows top to bottom; bit 2 is the leftmost pixel.
fn glyph(c: char) -> [u8; 5] {
    match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b011, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b110],
        '6' => [0b011, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b010, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b110],
        'L' => [0b100, 0b100, 0b100, 0b100, 0b111],
        'R' => [0b110, 0b101, 0b110, 0b101, 0b101],
        _ => panic!("the crowdling's font has no glyph for {c:?}"),
    }
}

pub const GLYPH_WIDTH: u32 = 3;
pub const GLYPH_HEIGHT: u32 = 5;

/// Width in pixels of `text` at `scale`, one blank column between glyphs.
pub fn text_width(text: &str, scale: u32) -> u32 {
    let glyphs = text.chars().count() as u32;
    (glyphs * (GLYPH_WIDTH + 1)).saturating_sub(1) * scale
}

/// Calls `plot(x, y)` for every lit pixel of `text` drawn with its top-left
/// corner at the origin.
pub fn rasterize(text: &str, scale: u32, mut plot: impl FnMut(u32, u32)) {
    for (index, c) in text.chars().enumerate() {
        let left = index as u32 * (GLYPH_WIDTH + 1) * scale;
        for (row, bits) in glyph(c).iter().enumerate() {
            for column in 0..GLYPH_WIDTH {
                if bits & (0b100 >> column) == 0 {
                    continue;
                }
                for dy in 0..scale {
                    for dx in 0..scale {
                        plot(left + column * scale + dx, row as u32 * scale + dy);
                    }
                }
            }
        }
    }
}
