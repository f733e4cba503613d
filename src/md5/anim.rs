//! The `.md5anim` grammar:
//!
//! ```text
//! MD5Version 10
//! commandline "..."
//! numFrames F
//! numJoints J
//! frameRate R
//! numAnimatedComponents C
//! hierarchy { "name" parent flags startIndex   ...J times }
//! bounds    { ( min ) ( max )                  ...F times }
//! baseframe { ( px py pz ) ( qx qy qz )        ...J times }
//! frame i { C floats }                         ...F times
//! ```
//!
//! A joint's flags (bits Tx Ty Tz Qx Qy Qz) say which of its baseframe
//! components each frame overrides; they are read from the frame starting at
//! `startIndex`. Every such range is checked to lie inside the frame.

use super::parser::{Parser, Result};
use super::{BaseJoint, HierarchyJoint, Md5Anim, Md5Error};
use crate::bounds::Bounds;

const ALL_COMPONENT_FLAGS: i64 = 0x3f;

// The shortest text each entry can take: header counts reserve no more
// entries than the rest of the file could hold.
const MIN_HIERARCHY_JOINT_BYTES: usize = r#"""0 0 0"#.len();
const MIN_BOUNDS_BYTES: usize = "(0 0 0)(0 0 0)".len();
const MIN_BASE_JOINT_BYTES: usize = "(0 0 0)(0 0 0)".len();
const MIN_FRAME_BYTES: usize = "frame 0{}".len();
const MIN_COMPONENT_BYTES: usize = "0 ".len();

/// Parses an `.md5anim`; `file` names the text in error messages.
pub fn parse_anim(text: &str, file: &str) -> std::result::Result<Md5Anim, Md5Error> {
    let mut p = Parser::new(text, file);
    let commandline = p.header()?;

    p.keyword("numFrames")?;
    let (num_frames, token) = p.count("numFrames")?;
    if num_frames == 0 {
        return Err(p.error(&token, "numFrames is 0, an anim needs at least one frame"));
    }
    p.keyword("numJoints")?;
    let (num_joints, token) = p.count("numJoints")?;
    if num_joints == 0 {
        return Err(p.error(&token, "numJoints is 0, an anim needs at least one joint"));
    }
    p.keyword("frameRate")?;
    let token = p.next()?;
    let frame_rate = p.float_of(&token)?;
    if frame_rate <= 0.0 {
        return Err(p.error(
            &token,
            format!("frameRate must be positive, found {frame_rate}"),
        ));
    }
    p.keyword("numAnimatedComponents")?;
    let (num_components, _) = p.count("numAnimatedComponents")?;

    let hierarchy = hierarchy(&mut p, num_joints, num_components)?;

    p.keyword("bounds")?;
    p.bracket("{")?;
    let mut bounds = Vec::with_capacity(p.capacity(num_frames, MIN_BOUNDS_BYTES));
    for i in 0..num_frames {
        let min = p.vec3_described(|| format!("'(' of bounds {i} of {num_frames}"))?;
        bounds.push(Bounds {
            min,
            max: p.vec3()?,
        });
    }
    p.bracket_described("}", || {
        format!("'}}' after {num_frames} bounds (numFrames {num_frames})")
    })?;

    p.keyword("baseframe")?;
    p.bracket("{")?;
    let mut baseframe = Vec::with_capacity(p.capacity(num_joints, MIN_BASE_JOINT_BYTES));
    for i in 0..num_joints {
        baseframe.push(BaseJoint {
            position: p.vec3_described(|| format!("'(' of baseframe joint {i} of {num_joints}"))?,
            orientation: p.orientation()?,
        });
    }
    p.bracket_described("}", || {
        format!("'}}' after {num_joints} baseframe joints (numJoints {num_joints})")
    })?;

    let mut frames = Vec::with_capacity(p.capacity(num_frames, MIN_FRAME_BYTES));
    for i in 0..num_frames {
        p.keyword_described("frame", || format!("frame {i} of {num_frames}"))?;
        p.entry_index("frame", i)?;
        p.bracket("{")?;
        frames.push(frame(&mut p, i, num_components)?);
    }
    p.end_of_file(|| format!("end of file after {num_frames} frames (numFrames {num_frames})"))?;

    Ok(Md5Anim {
        commandline,
        frame_rate,
        num_animated_components: num_components,
        hierarchy,
        bounds,
        baseframe,
        frames,
    })
}

fn hierarchy(p: &mut Parser, num_joints: u32, num_components: u32) -> Result<Vec<HierarchyJoint>> {
    p.keyword("hierarchy")?;
    p.bracket("{")?;
    let mut hierarchy = Vec::with_capacity(p.capacity(num_joints, MIN_HIERARCHY_JOINT_BYTES));
    for i in 0..num_joints {
        let name = p.string_described(|| format!("joint {i} of {num_joints} (a quoted name)"))?;
        let parent = p.parent(i)?;
        let (flags, token) = p.int()?;
        if !(0..=ALL_COMPONENT_FLAGS).contains(&flags) {
            return Err(p.error(
                &token,
                format!("joint {i} '{name}' has flags {flags}, expected 0..=63 (bits Tx Ty Tz Qx Qy Qz)"),
            ));
        }
        let flags = flags as u8;
        let (start_index, token) = p.count("startIndex")?;
        let joint = HierarchyJoint {
            name: name.to_owned(),
            parent,
            flags,
            start_index,
        };
        let end = u64::from(start_index) + u64::from(joint.animated_component_count());
        if end > u64::from(num_components) {
            return Err(p.error(
                &token,
                format!(
                    "joint {i} '{name}' reads frame components {start_index}..{end} \
                     but numAnimatedComponents is {num_components}"
                ),
            ));
        }
        hierarchy.push(joint);
    }
    p.bracket_described("}", || {
        format!("'}}' after {num_joints} joints (numJoints {num_joints})")
    })?;
    Ok(hierarchy)
}

/// The floats of frame `index`, after its opening `{`.
fn frame(p: &mut Parser, index: u32, num_components: u32) -> Result<Vec<f32>> {
    let mut values = Vec::with_capacity(p.capacity(num_components, MIN_COMPONENT_BYTES));
    for count in 0..num_components {
        let token = p.next()?;
        if token.is_bracket("}") {
            return Err(p.error(
                &token,
                format!(
                    "frame {index} has {count} components but numAnimatedComponents is {num_components}"
                ),
            ));
        }
        values.push(p.float_of(&token)?);
    }
    p.bracket_described("}", || {
        format!("'}}' after {num_components} components (numAnimatedComponents {num_components})")
    })?;
    Ok(values)
}
