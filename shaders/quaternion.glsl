// Unit quaternions stored as vec4(x, y, z, w), the layout of glam::Quat.
#ifndef QUATERNION_GLSL
#define QUATERNION_GLSL

// q * v * conjugate(q), expanded: two cross products instead of a matrix.
vec3 quat_rotate(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// Hamilton product a * b: apply b, then a.
vec4 quat_mul(vec4 a, vec4 b) {
    return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

#endif
