use super::World;

/// Builds a value from a [`World`]: how [`World::init_resource`] and
/// [`Local`](crate::system::Local) make their first value.
///
/// Every `T: Default` has it through `T::default()`; implement it by hand
/// when the first value depends on what the world holds.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Config { width: u32 }
/// #[derive(Resource)]
/// struct Grid { cells: Vec<u8> }
///
/// impl FromWorld for Grid {
///     fn from_world(world: &mut World) -> Self {
///         let width = world.resource::<Config>().width as usize;
///         Grid { cells: vec![0; width * width] }
///     }
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Config { width: 3 });
/// world.init_resource::<Grid>();
/// assert_eq!(world.resource::<Grid>().cells.len(), 9);
/// ```
pub trait FromWorld {
    /// Creates `Self` from the data in `world`.
    fn from_world(world: &mut World) -> Self;
}

impl<T: Default> FromWorld for T {
    /// Creates `Self` with [`Default::default`]; the world is not read.
    #[track_caller]
    fn from_world(_world: &mut World) -> Self {
        T::default()
    }
}
