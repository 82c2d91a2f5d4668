use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let item: &Position;
    {
        let mut world = World::new();
        world.spawn(Position(1.0));
        let mut query = world.query::<&Position>();
        item = query.iter(&world).next().unwrap();
    }
    println!("{}", item.0);
}
