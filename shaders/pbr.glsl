// The glTF 2.0 specification's metallic-roughness BRDF (Appendix B):
// GGX distribution, Smith-GGX height-correlated visibility, Schlick
// Fresnel, metals and dielectrics blended by metallic. The CPU twin is
// Rust's material::brdf, which the sphere-grid test checks this against.
#ifndef PBR_GLSL
#define PBR_GLSL

const float PI = 3.14159265358979;

// What the maps give a surface point.
struct PbrSurface {
    vec3 base_color; // linear
    float metallic;
    float roughness; // perceptual: the GGX alpha is its square
    float occlusion; // ambient only
};

vec3 fresnel_schlick(vec3 f0, float v_dot_h) {
    return f0 + (1.0 - f0) * pow(1.0 - v_dot_h, 5.0);
}

float ggx_distribution(float alpha, float n_dot_h) {
    float alpha2 = alpha * alpha;
    float d = n_dot_h * n_dot_h * (alpha2 - 1.0) + 1.0;
    return alpha2 / (PI * d * d);
}

float smith_ggx_visibility(float alpha, float n_dot_l, float n_dot_v) {
    float alpha2 = alpha * alpha;
    float ggx_v = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - alpha2) + alpha2);
    float ggx_l = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - alpha2) + alpha2);
    float ggx = ggx_v + ggx_l;
    return ggx > 0.0 ? 0.5 / ggx : 0.0;
}

// The sun's share: the BRDF times pi (so that a white Lambertian surface
// facing the sun reflects the light's colour, as Doom 3's shading does)
// times the cosine.
vec3 sun_reflectance(PbrSurface s, vec3 n, vec3 v, vec3 l) {
    float n_dot_l = max(dot(n, l), 0.0);
    if (n_dot_l <= 0.0) {
        return vec3(0.0);
    }
    vec3 h = normalize(l + v);
    float n_dot_v = max(dot(n, v), 1e-4);
    float n_dot_h = max(dot(n, h), 0.0);
    float v_dot_h = max(dot(v, h), 0.0);
    float roughness = max(s.roughness, MIN_ROUGHNESS);
    float alpha = roughness * roughness;
    vec3 c_diff = mix(s.base_color, vec3(0.0), s.metallic);
    vec3 f0 = mix(vec3(0.04), s.base_color, s.metallic);
    vec3 f = fresnel_schlick(f0, v_dot_h);
    vec3 diffuse = (1.0 - f) * c_diff / PI;
    vec3 specular = f * ggx_distribution(alpha, n_dot_h) * smith_ggx_visibility(alpha, n_dot_l, n_dot_v);
    return PI * (diffuse + specular) * n_dot_l;
}

// The hemisphere's light along `direction`: the ambient colour from above
// fading to HEMISPHERE_GROUND_SHARE of it from below (world Z up).
vec3 hemisphere(vec3 ambient, vec3 direction) {
    return ambient * mix(HEMISPHERE_GROUND_SHARE, 1.0, direction.z * 0.5 + 0.5);
}

// The ambient share: diffuse from the hemisphere around the normal, and
// specular from the hemisphere along the reflection, weighted by Karis'
// analytic fit of the split-sum environment BRDF, so that a metal keeps
// its colour in the shade.
vec3 ambient_reflectance(PbrSurface s, vec3 n, vec3 v, vec3 ambient) {
    float n_dot_v = max(dot(n, v), 1e-4);
    vec3 c_diff = mix(s.base_color, vec3(0.0), s.metallic);
    vec3 f0 = mix(vec3(0.04), s.base_color, s.metallic);
    const vec4 c0 = vec4(-1.0, -0.0275, -0.572, 0.022);
    const vec4 c1 = vec4(1.0, 0.0425, 1.04, -0.04);
    vec4 r = s.roughness * c0 + c1;
    float a004 = min(r.x * r.x, exp2(-9.28 * n_dot_v)) * r.x + r.y;
    vec2 ab = vec2(-1.04, 1.04) * a004 + r.zw;
    vec3 environment = f0 * ab.x + ab.y;
    vec3 reflected = reflect(-v, n);
    vec3 diffuse = c_diff * hemisphere(ambient, n);
    vec3 specular = environment * hemisphere(ambient, reflected);
    return (diffuse + specular) * s.occlusion;
}

#endif
