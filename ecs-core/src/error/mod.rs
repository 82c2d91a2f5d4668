//! Error handling for fallible systems, observers and commands.
//!
//! A system, observer or command that returns [`Result`] is fallible: its
//! `Err` ([`BevyError`], made from any error by `?`) goes to the world's
//! error handler, an [`ErrorHandler`] set with the [`FallbackErrorHandler`]
//! resource and read by [`World::fallback_error_handler`].
//!
//! ```text
//! fn system(..) -> Result ──Err(e)──▶ handler(e, ErrorContext::System { name, .. })
//!                                       default: match_severity ─▶ panic (naming the system)
//! ```
//!
//! The handlers [`match_severity`] (the default), [`panic()`], [`error`],
//! [`warn`], [`info`], [`debug`], [`trace`] and [`ignore`] come ready; any
//! `fn(BevyError, ErrorContext)` is a handler. An error's [`Severity`] is
//! [`Severity::Panic`] unless set otherwise, so by default a failing system
//! panics, naming itself and the error.
//!
//! ```
//! use ecs::prelude::*;
//! use ecs::error::{warn, FallbackErrorHandler};
//!
//! #[derive(Resource)]
//! struct Config(String);
//! #[derive(Resource, Default)]
//! struct Width(u32);
//!
//! fn parse_width(config: Res<Config>, mut width: ResMut<Width>) -> Result {
//!     width.0 = config.0.parse()?;
//!     Ok(())
//! }
//!
//! let mut world = World::new();
//! world.insert_resource(Config("wide".to_owned()));
//! world.init_resource::<Width>();
//! // Logs the failure instead of panicking.
//! world.insert_resource(FallbackErrorHandler(warn));
//! let mut schedule = Schedule::default();
//! schedule.add_systems(parse_width);
//! schedule.run(&mut world);
//! assert_eq!(world.resource::<Width>().0, 0);
//! ```
//!
//! [`World::fallback_error_handler`]: crate::world::World::fallback_error_handler

mod bevy_error;
mod command_handling;
mod handler;

pub use bevy_error::{BevyError, ContextExt, ResultSeverityExt, Severity};
pub use command_handling::CommandOutput;
pub use handler::{
    debug, error, ignore, info, match_severity, panic, trace, warn, ErrorContext, ErrorHandler,
    FallbackErrorHandler,
};

/// The result of a fallible system, observer or command: `Ok(T)` or a
/// [`BevyError`].
pub type Result<T = (), E = BevyError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests;
