use ecs::prelude::*;

#[derive(Component)]
struct Health(u32);

fn heal(mut set: ParamSet<(Query<&mut Health>, Query<&Health>)>) {
    let mut writer = set.p0();
    let reader = set.p1();
    for mut health in &mut writer {
        health.0 += 1;
    }
    let _ = reader.iter().count();
}

fn main() {
    let mut world = World::new();
    world.run_system_once(heal).unwrap();
}
