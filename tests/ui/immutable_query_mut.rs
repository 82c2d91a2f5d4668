use ecs::prelude::*;

#[derive(Component)]
#[component(immutable)]
struct Level(u32);

// `&mut Level` is no query term: `Level` is immutable.
fn level_up(mut levels: Query<&mut Level>) {
    for mut level in &mut levels {
        level.0 += 1;
    }
}

fn main() {
    let mut schedule = Schedule::default();
    schedule.add_systems(level_up);
}
