use ecs::prelude::*;

#[derive(Resource)]
struct Time(f32);

#[derive(SystemParam)]
enum Params<'w> {
    Time(Res<'w, Time>),
    Nothing,
}

fn main() {}
