use ecs::prelude::*;

#[derive(Resource)]
struct Time(f32);

#[derive(SystemParam)]
struct Params<'w, 's> {
    time: Res<'s, Time>,
    commands: Commands<'w, 's>,
}

fn main() {}
