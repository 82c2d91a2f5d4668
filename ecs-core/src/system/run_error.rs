//! Why a system's run produced no output: [`RunSystemError`], and the
//! parameter validation failure that skips a system,
//! [`SystemParamValidationError`].

use std::{any::Any, borrow::Cow, fmt::Display};

use crate::error::BevyError;

/// Why running a system produced no output: it was skipped, or it failed.
///
/// Any error converts into `Failed` (`?` in a function returning
/// `Result<T, RunSystemError>`), except a [`SystemParamValidationError`]
/// that asks to skip, which becomes `Skipped`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RunSystemError;
///
/// fn fails() -> Result {
///     Err("out of fuel".into())
/// }
///
/// let mut world = World::new();
/// let error = world.run_system_once::<_, (), _>(fails).unwrap_err();
/// assert!(matches!(error, RunSystemError::Failed(_)));
/// assert_eq!(error.to_string(), "out of fuel");
/// ```
#[derive(Debug)]
pub enum RunSystemError {
    /// The system did not run: a parameter failed validation and asked to
    /// skip it. Not an error: schedules go on without reporting it.
    Skipped(SystemParamValidationError),
    /// The system returned an error (or a parameter failed validation
    /// without asking to skip).
    Failed(BevyError),
}

impl Display for RunSystemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Skipped(error) => write!(
                f,
                "System did not run due to failed parameter validation: {error}"
            ),
            Self::Failed(error) => write!(f, "{error}"),
        }
    }
}

impl<E: Any> From<E> for RunSystemError
where
    BevyError: From<E>,
{
    fn from(mut value: E) -> Self {
        // A skipping validation error is not a failure; the downcast
        // depends only on `E`, so it folds away after monomorphisation.
        let any: &mut dyn Any = &mut value;
        if let Some(error) = any.downcast_mut::<SystemParamValidationError>() {
            if error.skipped {
                return Self::Skipped(std::mem::replace(error, SystemParamValidationError::EMPTY));
            }
        }
        Self::Failed(From::from(value))
    }
}

/// A system parameter that could not be fetched: the system is skipped
/// (`skipped`) or fails.
///
/// A missing resource (`Res`, `ResMut`, `NonSend`, `NonSendMut`) fails
/// validation without skipping; `Single` and `Populated` skip;
/// [`If`](super::If) turns any failure into a skip, and `Option<P>` and
/// `Result<P, SystemParamValidationError>` hand it to the system.
///
/// ```
/// use ecs::system::{RunSystemError, SystemParamValidationError};
///
/// struct Player;
/// let error = SystemParamValidationError::skipped::<Player>("no player yet");
/// assert!(matches!(RunSystemError::from(error), RunSystemError::Skipped(_)));
/// let error = SystemParamValidationError::invalid::<Player>("two players");
/// assert!(matches!(RunSystemError::from(error), RunSystemError::Failed(_)));
/// ```
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct SystemParamValidationError {
    /// Whether the system should be skipped (`true`) or the error handled
    /// (`false`, by default a panic).
    pub skipped: bool,
    /// What went wrong.
    pub message: Cow<'static, str>,
    /// The parameter, usually its type name.
    ///
    /// A `Cow<'static, str>` rather than bevy's `DebugName`, as every
    /// name here is.
    pub param: Cow<'static, str>,
    /// The field of a `#[derive(SystemParam)]` parameter, with a `::`
    /// prefix, or empty.
    pub field: Cow<'static, str>,
}

impl SystemParamValidationError {
    const EMPTY: Self = Self {
        skipped: false,
        message: Cow::Borrowed(""),
        param: Cow::Borrowed(""),
        field: Cow::Borrowed(""),
    };

    /// An error that skips the system, for the parameter `T`.
    pub fn skipped<T>(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new::<T>(true, message, Cow::Borrowed(""))
    }

    /// An error to handle (by default a panic), for the parameter `T`.
    pub fn invalid<T>(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new::<T>(false, message, Cow::Borrowed(""))
    }

    /// An error for the parameter `T` (its field `field`), skipping the
    /// system if `skipped`.
    pub fn new<T>(
        skipped: bool,
        message: impl Into<Cow<'static, str>>,
        field: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self {
            skipped,
            message: message.into(),
            param: Cow::Borrowed(std::any::type_name::<T>()),
            field: field.into(),
        }
    }
}

impl Display for SystemParamValidationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Parameter `{}{}` failed validation: {}",
            crate::diagnostics::short_type_name(&self.param),
            self.field,
            self.message
        )?;
        if !self.skipped {
            write!(
                f,
                "\nIf this is an expected state, wrap the parameter in `Option<T>` and handle `None` when it happens."
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for SystemParamValidationError {}
