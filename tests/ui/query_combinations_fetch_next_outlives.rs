use ecs::prelude::*;

#[derive(Component)]
struct Mass(f32);

fn main() {
    let mut world = World::new();
    world.spawn(Mass(1.0));
    world.spawn(Mass(2.0));
    world.spawn(Mass(3.0));
    let mut query = world.query::<&mut Mass>();
    let mut combos = query.iter_combinations_mut::<2>(&mut world);
    // Successive combinations share entities: two arrays alive together
    // would alias.
    let [mut a, _] = combos.fetch_next().unwrap();
    let [b, _] = combos.fetch_next().unwrap();
    a.0 += b.0;
}
