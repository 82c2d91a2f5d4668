use std::rc::Rc;

use ecs::prelude::*;

#[derive(Event)]
struct Shared(Rc<u32>);

fn main() {}
