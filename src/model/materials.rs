//! Each mesh's material under each skin, resolved and its images read at
//! load: the model holds what it draws with, and the GPU upload opens no
//! file and parses no `.mtr`.

use std::collections::HashMap;

use super::SkinChoice;
use crate::material::{MaterialLibrary, MaterialMaps};
use crate::skin::SkinnedMesh;
use crate::vfs::GameFile;

/// A model's materials: the distinct ones its skins give its meshes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelMaterials {
    /// One per distinct shader the skins remap the meshes' to, in the
    /// order first met.
    pub maps: Vec<MaterialMaps>,
    /// Per mesh of the model, per skin, its index into `maps`; empty for a
    /// mesh without triangles (never drawn, never looked up).
    pub of_mesh: Vec<Vec<usize>>,
}

impl ModelMaterials {
    /// The materials of `meshes` (of `mesh_file`) under `skins`, looked up
    /// in `library` ([`MaterialLibrary::resolve`]: missing images are
    /// warnings, logged there) and read ([`MaterialMaps::read`]: files
    /// that cannot be read are warnings too). Each shader is resolved once.
    pub fn resolve(
        meshes: &[SkinnedMesh],
        skins: &[SkinChoice],
        library: &MaterialLibrary,
        mesh_file: &GameFile,
    ) -> ModelMaterials {
        let mut materials = ModelMaterials::default();
        let mut index_of_shader: HashMap<&str, usize> = HashMap::new();
        for mesh in meshes {
            if mesh.indices.is_empty() {
                materials.of_mesh.push(Vec::new());
                continue;
            }
            let of_skin = skins
                .iter()
                .map(|skin| {
                    let shader = skin.remap(&mesh.shader);
                    *index_of_shader.entry(shader).or_insert_with(|| {
                        let images = library.resolve(shader, mesh_file);
                        materials.maps.push(MaterialMaps::read(&images));
                        materials.maps.len() - 1
                    })
                })
                .collect();
            materials.of_mesh.push(of_skin);
        }
        materials
    }
}
