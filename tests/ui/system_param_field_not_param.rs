use ecs::prelude::*;

#[derive(Resource)]
struct Time(f32);

#[derive(SystemParam)]
struct Params<'w> {
    time: Res<'w, Time>,
    count: u32,
    ticks: &'w mut Time,
}

fn main() {}
