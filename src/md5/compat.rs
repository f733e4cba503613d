//! Whether an anim was made for a mesh's skeleton. Animations bind to mesh
//! joints by index, so the joint count and every parent must agree; names are
//! only compared to warn, because real exporters rename joints between files.

use super::{Md5Anim, Md5Error, Md5Mesh};

/// `Ok` holds one warning per joint whose name differs between the files.
pub fn check_anim_fits_mesh(
    mesh: &Md5Mesh,
    mesh_file: &str,
    anim: &Md5Anim,
    anim_file: &str,
) -> Result<Vec<String>, Md5Error> {
    let misfit = |detail: String| Md5Error {
        file: anim_file.to_owned(),
        location: None,
        message: format!("skeleton does not fit {mesh_file}: {detail}"),
    };
    if anim.hierarchy.len() != mesh.joints.len() {
        return Err(misfit(format!(
            "{} joints here but {} in the mesh",
            anim.hierarchy.len(),
            mesh.joints.len()
        )));
    }
    let mut warnings = Vec::new();
    for (i, (anim_joint, mesh_joint)) in anim.hierarchy.iter().zip(&mesh.joints).enumerate() {
        if anim_joint.parent != mesh_joint.parent {
            return Err(misfit(format!(
                "joint {i} '{}' has parent {} here but {} in the mesh",
                anim_joint.name,
                parent_index(anim_joint.parent),
                parent_index(mesh_joint.parent)
            )));
        }
        if anim_joint.name != mesh_joint.name {
            warnings.push(format!(
                "{anim_file}: joint {i} is '{}' here but '{}' in {mesh_file}; bound by index",
                anim_joint.name, mesh_joint.name
            ));
        }
    }
    Ok(warnings)
}

/// The parent as the files write it.
fn parent_index(parent: Option<u32>) -> i64 {
    parent.map_or(-1, i64::from)
}
