#version 450
// Flat colour: the overlay is drawn without depth test, on top of the skin.

layout(location = 0) out vec4 out_color;

void main() {
    out_color = vec4(1.0, 0.85, 0.1, 1.0);
}
