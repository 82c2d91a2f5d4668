use ecs::prelude::*;

#[derive(Component)]
#[relationship]
struct Likes(Entity);

#[derive(Component)]
#[relationship_target(relationship = Likes, linked)]
struct LikedBy(Vec<Entity>);

fn main() {}
