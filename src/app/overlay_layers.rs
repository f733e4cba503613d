//! The overlay's layer rows: per layer the crowd plays (`--layer`,
//! `--additive`), its channel, the clip it plays (a list to pick another)
//! and its weight.

use super::controls::Action;
use super::overlay::OverlayView;
use crate::anim::LayerMode;

/// A row per layer; nothing when the crowd plays none.
pub fn layer_rows(ui: &mut egui::Ui, view: &OverlayView, actions: &mut Vec<Action>) {
    let crowd = &view.scene.crowd;
    let rows = crowd.layer_rows(&view.scene.cast.models);
    if rows.is_empty() {
        return;
    }
    ui.separator();
    egui::Grid::new("layer controls").show(ui, |ui| {
        ui.spacing_mut().slider_width = 70.0;
        for (index, row) in rows.iter().enumerate() {
            let layer = index as u32;
            let how = match row.mode {
                LayerMode::Override => "",
                LayerMode::Additive => " (additive)",
            };
            ui.label(format!("{}{how}", row.channel))
                .on_hover_text(format!("layer {}: its channel's joints", index + 1));
            let selected = row
                .clip
                .and_then(|clip| crowd.clip_names.get(clip as usize))
                .map_or("?", String::as_str);
            egui::ComboBox::from_id_salt(("layer clip", index))
                .width(70.0)
                .selected_text(selected)
                .show_ui(ui, |ui| {
                    for (clip, name) in crowd.clip_names.iter().enumerate() {
                        let clip = clip as u32;
                        if ui.selectable_label(row.clip == Some(clip), name).clicked() {
                            actions.push(Action::LayerClip { layer, clip });
                        }
                    }
                });
            let mut weight = row.weight;
            let slider = egui::Slider::new(&mut weight, 0.0..=1.0).fixed_decimals(2);
            if ui.add(slider).on_hover_text("the layer's weight").changed() {
                actions.push(Action::LayerWeight { layer, weight });
            }
            ui.end_row();
        }
    });
}
