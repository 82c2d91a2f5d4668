use ecs::prelude::*;

fn takes_input(In(n): In<u32>) {
    let _ = n;
}

fn takes_ref(InRef(s): InRef<str>, _: Query<Entity>) {
    let _ = s;
}

fn returns_value() -> u32 {
    7
}

fn main() {
    let mut schedule = Schedule::default();
    schedule.add_systems(takes_input);
    schedule.add_systems((takes_ref, returns_value));
}
