use ecs::prelude::*;

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq)]
struct Update;

fn main() {
    let _ = Schedule::new(Update);
}
