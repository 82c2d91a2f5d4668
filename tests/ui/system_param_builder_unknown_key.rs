use ecs::prelude::*;

#[derive(Resource)]
struct Time(f32);

// A misspelt key is reported at the key; `builder` takes no value.
#[derive(SystemParam)]
#[system_param(bulider)]
struct Clock<'w> {
    time: Res<'w, Time>,
}

#[derive(SystemParam)]
#[system_param(builder = "yes")]
struct Timer<'w> {
    time: Res<'w, Time>,
}

fn main() {}
