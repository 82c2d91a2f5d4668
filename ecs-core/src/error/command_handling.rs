//! [`CommandOutput`]: what a command may return.

use super::BevyError;
use crate::system::Never;

/// What a [`Command`](crate::system::Command) may return: `()`, or a
/// `Result` whose error converts into a [`BevyError`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid `Command` output type",
    label = "invalid `Command` output type",
    note = "a `Command` returns `()` or a `Result` whose error converts into `BevyError`"
)]
pub trait CommandOutput: Sized {
    /// The error, if the command failed.
    fn to_err(self) -> Option<BevyError>;
}

impl<T, E: Into<BevyError>> CommandOutput for Result<T, E> {
    #[inline]
    fn to_err(self) -> Option<BevyError> {
        self.err().map(Into::into)
    }
}

impl CommandOutput for () {
    #[inline]
    fn to_err(self) -> Option<BevyError> {
        None
    }
}

// A command that always panics returns `!`.
impl CommandOutput for Never {
    #[inline]
    fn to_err(self) -> Option<BevyError> {
        self
    }
}
