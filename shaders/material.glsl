// A mesh's material as crowd.frag, crowd_shadow.frag and impostor_bake.frag
// read it: its three maps under each of the crowd's skins, glTF's emissive
// and occlusion maps, its constants under each skin, the base colour, the
// MASK cut and the shading normal they give. The
// including shader declares `flat in uint in_skin` and crowd.vert's
// `in vec4 in_color_shortfall`.
#ifndef MATERIAL_GLSL
#define MATERIAL_GLSL

// The mesh's material under each of the crowd's skins (element s: skin
// s; the elements past the skins in use repeat the first).
layout(set = 1, binding = 0) uniform sampler2D diffuse_maps[MAX_SKINS];  // sRGB
layout(set = 1, binding = 1) uniform sampler2D normal_maps[MAX_SKINS];   // UNORM
layout(set = 1, binding = 2) uniform sampler2D specular_maps[MAX_SKINS]; // UNORM
// One each, not one per skin: only glTF materials have them, and a glTF
// character has one skin. Arrays would take the stage past the 32
// samplers lavapipe allows.
layout(set = 1, binding = 3) uniform sampler2D emissive_map;  // sRGB
layout(set = 1, binding = 4) uniform sampler2D occlusion_map; // UNORM, red

// Twin of Rust's gpu::shader_types::MaterialConstants: what a material
// holds beside its maps. std140 rounds each element of the array below to
// 16 bytes: room for factors to come.
struct MaterialConstants {
    // MASK: a base colour alpha below this is cut (glTF's alphaCutoff).
    float alpha_cutoff;
};

// Per skin, as the map arrays: element s is the material under skin s.
layout(set = 1, binding = 5) uniform Material {
    MaterialConstants constants_of_skin[MAX_SKINS];
};

#include "skins.glsl"

// The constants of the instance's skin's material (past the skins in use,
// the first's, as SAMPLE_SKIN samples).
MaterialConstants material_constants() {
    return constants_of_skin[in_skin < SKIN_COUNT ? in_skin : 0u];
}

vec4 diffuse_texel(vec2 uv) { SAMPLE_SKIN(diffuse_maps, uv) }
vec4 normal_texel(vec2 uv) { SAMPLE_SKIN(normal_maps, uv) }
vec4 specular_texel(vec2 uv) { SAMPLE_SKIN(specular_maps, uv) }

// The base colour: baseColorFactor x texture (the diffuse map holds their
// product) x the vertex colour (COLOR_0), alpha too, as the glTF
// specification has it. Twin of material::brdf::base_color.
vec4 base_color(vec2 uv) {
    return diffuse_texel(uv) * (1.0 - in_color_shortfall);
}

// A metallic-roughness material's metallic (blue of its map, as glTF
// keeps it), roughness (green) and occlusion (its own map's red).
vec3 metallic_roughness_occlusion(vec2 uv) {
    vec4 orm = specular_texel(uv);
    return vec3(orm.b, orm.g, texture(occlusion_map, uv).r);
}

// Whether a MASK surface whose base colour alpha (vertex alpha included)
// is `alpha` is kept, as the glTF specification has it: alpha >=
// alphaCutoff. Twin of material::brdf::mask_keeps.
bool mask_keeps(float alpha) {
    return alpha >= material_constants().alpha_cutoff;
}

// Texels store a direction with 128 meaning 0, so the flat texel
// (128, 128, 255) decodes to exactly +Z and changes nothing.
vec3 tangent_space_normal(vec3 texel) {
    return (texel * 255.0 - 128.0) / 127.0;
}

// The interpolated normal bent by the normal map.
vec3 shading_normal(vec3 interpolated_normal, vec4 interpolated_tangent, vec2 uv) {
    vec3 normal = normalize(interpolated_normal);
    // Interpolation bends the tangent off the normal: square it up again.
    vec3 tangent = interpolated_tangent.xyz - normal * dot(normal, interpolated_tangent.xyz);
    if (dot(tangent, tangent) > 1e-12) {
        tangent = normalize(tangent);
        // Green runs along +v (down the image), as Doom 3's bitangent does
        // and as crate::material derives normal maps from height maps.
        vec3 bitangent = cross(normal, tangent) * interpolated_tangent.w;
        vec3 mapped = tangent_space_normal(normal_texel(uv).xyz);
        normal = normalize(tangent * mapped.x + bitangent * mapped.y + normal * mapped.z);
    }
    return normal;
}

#endif
