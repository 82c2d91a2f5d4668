//! Error handlers: what becomes of a [`BevyError`] a system, observer or
//! command returns.

use std::{borrow::Cow, fmt::Display};

use super::{BevyError, Severity};
use crate::{change_detection::Tick, resource::Resource};

/// Where an error came from: handed to the [`ErrorHandler`] with the
/// error.
///
/// Names are `Cow<'static, str>` rather than bevy's `DebugName`, as every
/// system name here is.
#[derive(Debug, PartialEq, Eq, Clone)]
pub enum ErrorContext {
    /// A system returned the error.
    System {
        /// The system's name.
        name: Cow<'static, str>,
        /// The tick the system last ran at.
        last_run: Tick,
    },
    /// A run condition returned the error.
    RunCondition {
        /// The run condition's name.
        name: Cow<'static, str>,
        /// The tick the run condition was last evaluated at.
        last_run: Tick,
        /// The system the run condition is attached to.
        system: Cow<'static, str>,
        /// Whether the run condition is on a set containing `system`.
        on_set: bool,
    },
    /// A command returned the error.
    Command {
        /// The command's name (its type).
        name: Cow<'static, str>,
    },
    /// An observer returned the error.
    Observer {
        /// The observer's name.
        name: Cow<'static, str>,
        /// The tick the observer last ran at.
        last_run: Tick,
    },
}

impl Display for ErrorContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::System { name, .. } => write!(f, "System `{name}` failed"),
            Self::Command { name } => write!(f, "Command `{name}` failed"),
            Self::Observer { name, .. } => write!(f, "Observer `{name}` failed"),
            Self::RunCondition {
                name,
                system,
                on_set,
                ..
            } => write!(
                f,
                "Run condition `{name}` failed for{} system `{system}`",
                if *on_set { " set containing" } else { "" }
            ),
        }
    }
}

impl ErrorContext {
    /// The name of the system, run condition, command or observer that
    /// failed.
    pub fn name(&self) -> Cow<'static, str> {
        match self {
            Self::System { name, .. }
            | Self::Command { name }
            | Self::Observer { name, .. }
            | Self::RunCondition { name, .. } => name.clone(),
        }
    }

    /// What failed: `"system"`, `"run condition"`, `"command"` or
    /// `"observer"`.
    pub fn kind(&self) -> &str {
        match self {
            Self::System { .. } => "system",
            Self::Command { .. } => "command",
            Self::Observer { .. } => "observer",
            Self::RunCondition { .. } => "run condition",
        }
    }
}

/// What a world does with the errors its systems, observers and commands
/// return: any function (or non-capturing closure) of this signature.
pub type ErrorHandler = fn(BevyError, ErrorContext);

/// The resource that sets a world's [`ErrorHandler`]; without it the world
/// uses [`match_severity`], which panics on an error of the default
/// severity.
///
/// A schedule reads the handler when it starts a run: a change made while
/// it runs applies from its next run.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::error::{ignore, FallbackErrorHandler};
///
/// fn fails() -> Result {
///     Err("ignored".into())
/// }
///
/// let mut world = World::new();
/// world.insert_resource(FallbackErrorHandler(ignore));
/// let mut schedule = Schedule::default();
/// schedule.add_systems(fails);
/// schedule.run(&mut world); // does not panic
/// ```
#[derive(Clone, Copy)]
pub struct FallbackErrorHandler(pub ErrorHandler);

impl Resource for FallbackErrorHandler {}

impl Default for FallbackErrorHandler {
    fn default() -> Self {
        Self(match_severity)
    }
}

impl std::ops::Deref for FallbackErrorHandler {
    type Target = ErrorHandler;

    fn deref(&self) -> &ErrorHandler {
        &self.0
    }
}

impl std::ops::DerefMut for FallbackErrorHandler {
    fn deref_mut(&mut self) -> &mut ErrorHandler {
        &mut self.0
    }
}

/// The handler that acts on the error's [`Severity`]: [`panic()`] for
/// [`Severity::Panic`] (the default), [`error`] for [`Severity::Error`],
/// and so on down to [`ignore`].
#[track_caller]
#[inline]
pub fn match_severity(error: BevyError, ctx: ErrorContext) {
    match error.severity() {
        Severity::Ignore => ignore(error, ctx),
        Severity::Trace => trace(error, ctx),
        Severity::Debug => debug(error, ctx),
        Severity::Info => info(error, ctx),
        Severity::Warning => warn(error, ctx),
        Severity::Error => self::error(error, ctx),
        Severity::Panic => panic(error, ctx),
    }
}

/// The handler that panics with the error, naming what failed:
/// "Encountered an error in system `name`: error". An error standing for
/// a caught panic resumes that panic.
#[track_caller]
#[inline]
pub fn panic(mut error: BevyError, ctx: ErrorContext) {
    if error.severity() == Severity::Panic {
        if let Some(payload) = error.take_payload() {
            std::panic::resume_unwind(payload);
        }
    }
    panic!(
        "Encountered an error in {} `{}`: {}",
        ctx.kind(),
        ctx.name(),
        error
    );
}

/// Logs what failed and the error at `level`, through the `log` crate
/// (a program sees it once it installs a logger).
#[cold]
fn report(level: log::Level, error: &BevyError, ctx: &ErrorContext) {
    log::log!(
        level,
        "Encountered an error in {} `{}`: {}",
        ctx.kind(),
        ctx.name(),
        error
    );
}

/// The handler that logs the error at the `error` level
/// (`Encountered an error in system `name`: ...`).
#[track_caller]
#[inline]
pub fn error(error: BevyError, ctx: ErrorContext) {
    report(log::Level::Error, &error, &ctx);
}

/// The handler that logs the error at the `warn` level.
#[track_caller]
#[inline]
pub fn warn(error: BevyError, ctx: ErrorContext) {
    report(log::Level::Warn, &error, &ctx);
}

/// The handler that logs the error at the `info` level.
#[track_caller]
#[inline]
pub fn info(error: BevyError, ctx: ErrorContext) {
    report(log::Level::Info, &error, &ctx);
}

/// The handler that logs the error at the `debug` level.
#[track_caller]
#[inline]
pub fn debug(error: BevyError, ctx: ErrorContext) {
    report(log::Level::Debug, &error, &ctx);
}

/// The handler that logs the error at the `trace` level.
#[track_caller]
#[inline]
pub fn trace(error: BevyError, ctx: ErrorContext) {
    report(log::Level::Trace, &error, &ctx);
}

/// The handler that does nothing with the error.
#[track_caller]
#[inline]
pub fn ignore(_: BevyError, _: ErrorContext) {}
