//! `bench`'s cases: every combination of the options' lists, one run each.

use super::bench::{BenchArgs, Case, Mode};
use super::render_args::Switch;

/// Every combination of the options' lists, in the order the runs report:
/// the first list varies slowest, `--modes` fastest.
pub(super) fn cases(args: &BenchArgs, given_layers: u32) -> Vec<Case> {
    let layers = match args.layer_counts.is_empty() {
        true => vec![given_layers],
        false => args.layer_counts.clone(),
    };
    let first = Case {
        layers: layers[0],
        morphs: args.morph_switches[0],
        instances: args.instances[0],
        mode: args.modes[0],
        lod: args.lod[0],
        lod_influences: args.lod_influences[0],
        occlusion: args.occlusion[0],
        impostors: args.impostors[0] == Switch::On,
        anim_lod: args.anim_lod[0],
        locomotion: args.locomotion[0],
        multi_draw: args.multi_draw[0],
        view: args.view[0],
        shadows: args.shadows[0],
        msaa: args.msaa[0],
        animate_kernel: args.animate_kernel[0],
    };
    let cases = vary(vec![first], &args.instances, |c, v| c.instances = v);
    let cases = vary(cases, &args.view, |c, v| c.view = v);
    let cases = vary(cases, &args.msaa, |c, v| c.msaa = v);
    let cases = vary(cases, &args.shadows, |c, v| c.shadows = v);
    let cases = vary(cases, &args.lod, |c, v| c.lod = v);
    let cases = vary(cases, &args.lod_influences, |c, v| c.lod_influences = v);
    let cases = vary(cases, &args.occlusion, |c, v| c.occlusion = v);
    let cases = vary(cases, &args.impostors, |c, v| c.impostors = v == Switch::On);
    let cases = vary(cases, &args.anim_lod, |c, v| c.anim_lod = v);
    let cases = vary(cases, &args.locomotion, |c, v| c.locomotion = v);
    let cases = vary(cases, &args.multi_draw, |c, v| c.multi_draw = v);
    let cases = vary(cases, &args.animate_kernel, |c, v| c.animate_kernel = v);
    let cases = vary(cases, &layers, |c, v| c.layers = v);
    let cases = vary(cases, &args.morph_switches, |c, v| c.morphs = v);
    let mut cases = vary(cases, &args.modes, |c, v| c.mode = v);
    // Only GPU animation has a kernel.
    cases.retain(|c| c.mode == Mode::Gpu || c.animate_kernel == args.animate_kernel[0]);
    cases
}

/// Each case once per value of one option, that option set to it.
fn vary<T: Copy>(cases: Vec<Case>, values: &[T], set: impl Fn(&mut Case, T)) -> Vec<Case> {
    let set = &set;
    cases
        .into_iter()
        .flat_map(|case| {
            values.iter().map(move |&value| {
                let mut case = case;
                set(&mut case, value);
                case
            })
        })
        .collect()
}
