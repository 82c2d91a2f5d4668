use ecs::prelude::*;

#[derive(ScheduleLabel, Clone, Copy)]
union Raw {
    a: u32,
}

fn main() {}
