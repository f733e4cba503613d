//! The CPU twin of shaders/pbr.glsl: the glTF 2.0 specification's
//! metallic-roughness BRDF (Appendix B) and md5crowd's hemisphere ambient,
//! evaluated per point in `f32` as the shader does, for the GPU == CPU
//! tests of crowd.frag.

use glam::{Vec3, Vec4};

use crate::shared_constants::{HEMISPHERE_GROUND_SHARE, MIN_ROUGHNESS};

/// material.glsl's `base_color`: the diffuse map's texel (baseColorFactor
/// x texture, folded at decode) times the vertex colour (`COLOR_0`,
/// linear; white where the file has none), alpha too. crowd.frag shades
/// every model from it: [`PbrSurface::base_color`] is its `rgb`, and an
/// unlit material shows it as it is.
pub fn base_color(texel: Vec4, vertex_color: Vec4) -> Vec4 {
    texel * vertex_color
}

/// material.glsl's `mask_keeps`: whether a MASK surface whose
/// [`base_color`] alpha is `alpha` is kept (glTF: alpha >= alphaCutoff).
/// crowd.frag at one sample, the shadow casters and the impostor bake cut
/// by it; alpha-to-coverage puts the middle of its edge there.
pub fn mask_keeps(alpha: f32, alpha_cutoff: f32) -> bool {
    alpha >= alpha_cutoff
}

/// What the maps give a surface point (pbr.glsl's `PbrSurface`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PbrSurface {
    /// Linear: [`base_color`]'s `rgb`.
    pub base_color: Vec3,
    pub metallic: f32,
    /// Perceptual: the GGX alpha is its square.
    pub roughness: f32,
    /// Ambient only.
    pub occlusion: f32,
}

/// The light a point is lit by (the frame's uniforms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PbrLight {
    /// Unit vector towards the sun.
    pub direction: Vec3,
    pub color: Vec3,
    /// The hemisphere's colour from straight up.
    pub ambient: Vec3,
    /// How much of the sun reaches the point (shadows.glsl).
    pub visibility: f32,
}

fn fresnel_schlick(f0: Vec3, v_dot_h: f32) -> Vec3 {
    f0 + (Vec3::ONE - f0) * (1.0 - v_dot_h).powf(5.0)
}

fn ggx_distribution(alpha: f32, n_dot_h: f32) -> f32 {
    let alpha2 = alpha * alpha;
    let d = n_dot_h * n_dot_h * (alpha2 - 1.0) + 1.0;
    alpha2 / (std::f32::consts::PI * d * d)
}

fn smith_ggx_visibility(alpha: f32, n_dot_l: f32, n_dot_v: f32) -> f32 {
    let alpha2 = alpha * alpha;
    let ggx_v = n_dot_l * (n_dot_v * n_dot_v * (1.0 - alpha2) + alpha2).sqrt();
    let ggx_l = n_dot_v * (n_dot_l * n_dot_l * (1.0 - alpha2) + alpha2).sqrt();
    let ggx = ggx_v + ggx_l;
    if ggx > 0.0 {
        0.5 / ggx
    } else {
        0.0
    }
}

fn diffuse_and_f0(s: &PbrSurface) -> (Vec3, Vec3) {
    let c_diff = s.base_color.lerp(Vec3::ZERO, s.metallic);
    let f0 = Vec3::splat(0.04).lerp(s.base_color, s.metallic);
    (c_diff, f0)
}

/// pbr.glsl's `sun_reflectance`: pi times the BRDF times the cosine, for
/// normal `n`, towards the eye `v` and the light `l` (unit vectors).
pub fn sun_reflectance(s: &PbrSurface, n: Vec3, v: Vec3, l: Vec3) -> Vec3 {
    let n_dot_l = n.dot(l).max(0.0);
    if n_dot_l <= 0.0 {
        return Vec3::ZERO;
    }
    let h = (l + v).normalize();
    let n_dot_v = n.dot(v).max(1e-4);
    let n_dot_h = n.dot(h).max(0.0);
    let v_dot_h = v.dot(h).max(0.0);
    let roughness = s.roughness.max(MIN_ROUGHNESS);
    let alpha = roughness * roughness;
    let (c_diff, f0) = diffuse_and_f0(s);
    let f = fresnel_schlick(f0, v_dot_h);
    let diffuse = (Vec3::ONE - f) * c_diff / std::f32::consts::PI;
    let specular =
        f * ggx_distribution(alpha, n_dot_h) * smith_ggx_visibility(alpha, n_dot_l, n_dot_v);
    std::f32::consts::PI * (diffuse + specular) * n_dot_l
}

/// pbr.glsl's `hemisphere`: the ambient along `direction` (world Z up).
pub fn hemisphere(ambient: Vec3, direction: Vec3) -> Vec3 {
    let up = direction.z * 0.5 + 0.5;
    ambient * (HEMISPHERE_GROUND_SHARE + (1.0 - HEMISPHERE_GROUND_SHARE) * up)
}

/// pbr.glsl's `ambient_reflectance`.
pub fn ambient_reflectance(s: &PbrSurface, n: Vec3, v: Vec3, ambient: Vec3) -> Vec3 {
    let n_dot_v = n.dot(v).max(1e-4);
    let (c_diff, f0) = diffuse_and_f0(s);
    let r = [
        1.0 - s.roughness,
        s.roughness * -0.0275 + 0.0425,
        s.roughness * -0.572 + 1.04,
        s.roughness * 0.022 - 0.04,
    ];
    let a004 = (r[0] * r[0]).min((-9.28 * n_dot_v).exp2()) * r[0] + r[1];
    let (a, b) = (-1.04 * a004 + r[2], 1.04 * a004 + r[3]);
    let environment = f0 * a + Vec3::splat(b);
    let reflected = -v - 2.0 * n.dot(-v) * n;
    let diffuse = c_diff * hemisphere(ambient, n);
    let specular = environment * hemisphere(ambient, reflected);
    (diffuse + specular) * s.occlusion
}

/// crowd.frag's metallic-roughness colour (linear, before the attachment
/// clamps it) with no emission.
pub fn shade(s: &PbrSurface, light: &PbrLight, n: Vec3, v: Vec3) -> Vec3 {
    sun_reflectance(s, n, v, light.direction) * light.visibility * light.color
        + ambient_reflectance(s, n, v, light.ambient)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(metallic: f32, roughness: f32) -> PbrSurface {
        PbrSurface {
            base_color: Vec3::new(0.8, 0.4, 0.2),
            metallic,
            roughness,
            occlusion: 1.0,
        }
    }

    #[test]
    fn a_rough_dielectric_reflects_about_its_albedo_and_a_metal_keeps_colour_in_the_shade() {
        let n = Vec3::Z;
        let rough = sun_reflectance(&surface(0.0, 1.0), n, n, n);
        // Lambert's albedo, less the few percent Fresnel sends to specular.
        assert!((rough.x - 0.8).abs() < 0.08, "{rough}");
        let ambient = Vec3::splat(0.3);
        let metal = ambient_reflectance(&surface(1.0, 0.5), n, n, ambient);
        assert!(metal.x > 0.1 && metal.x > metal.z, "{metal}");
        // Facing down, the hemisphere gives its ground share.
        assert_eq!(
            hemisphere(ambient, -Vec3::Z),
            ambient * HEMISPHERE_GROUND_SHARE
        );
    }

    #[test]
    fn a_smooth_highlight_is_narrow_and_bright() {
        let n = Vec3::Z;
        let l = Vec3::new(0.0, 0.6, 0.8);
        let mirror = Vec3::new(0.0, -0.6, 0.8);
        let smooth = surface(1.0, 0.1);
        let peak = sun_reflectance(&smooth, n, mirror, l);
        let off = sun_reflectance(&smooth, n, Vec3::new(0.6, 0.0, 0.8), l);
        assert!(peak.x > 10.0 * off.x.max(1e-6), "{peak} {off}");
        // Roughness 0 is clamped, not a NaN.
        assert!(sun_reflectance(&surface(1.0, 0.0), n, mirror, l).is_finite());
    }
}
