use ecs::prelude::*;

#[derive(Resource)]
struct Time(f32);

#[derive(SystemParam)]
struct Params<'a> {
    time: Res<'a, Time>,
}

fn main() {}
