//! [`BevyError`]: any error, type-erased, with a [`Severity`] and context.

use std::{
    any::Any,
    borrow::Cow,
    error::Error,
    fmt::{Debug, Display},
    sync::Mutex,
};

/// Any error (`E: std::error::Error + Send + Sync + 'static`, a `String`
/// or a `&str`), type-erased, with a [`Severity`] telling the
/// [`match_severity`](super::match_severity) handler what to do with it.
///
/// It is what `?` turns an error into in a function returning
/// [`Result`](super::Result). It does not implement [`Error`] itself, so
/// that every error converts into it.
///
/// Unlike bevy's, it captures no backtrace, and its `Display` ends
/// without a newline, since we print no backtrace after it.
///
/// ```
/// use ecs::error::{BevyError, Severity};
///
/// fn parse(text: &str) -> ecs::error::Result<u32> {
///     Ok(text.parse::<u32>()?)
/// }
///
/// let error = parse("x").unwrap_err();
/// assert!(error.is::<std::num::ParseIntError>());
/// assert_eq!(error.severity(), Severity::Panic);
/// assert_eq!(error.with_severity(Severity::Warning).severity(), Severity::Warning);
/// ```
pub struct BevyError {
    inner: Box<InnerBevyError>,
}

/// Boxed so that a `Result<(), BevyError>` is one pointer wide.
struct InnerBevyError {
    error: Box<dyn Error + Send + Sync + 'static>,
    /// Context messages, innermost first.
    context: Vec<Cow<'static, str>>,
    severity: Severity,
    /// The payload of the panic this error stands for, if any; a `Mutex`
    /// keeps the error `Sync` around the `Send`-only payload.
    panic_payload: Option<Mutex<Box<dyn Any + Send>>>,
}

/// How serious an error is: what [`match_severity`](super::match_severity)
/// does with it, from [`Ignore`](Severity::Ignore) to
/// [`Panic`](Severity::Panic) (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Ord, PartialOrd, Hash)]
pub enum Severity {
    /// Not worth reporting.
    Ignore,
    /// Reported at the `trace` level.
    Trace,
    /// Reported at the `debug` level.
    Debug,
    /// Reported at the `info` level.
    Info,
    /// Reported at the `warn` level.
    Warning,
    /// Reported at the `error` level.
    Error,
    /// A bug: panics. The severity of every error made by `?`.
    Panic,
}

impl BevyError {
    /// `error` with `severity`.
    pub fn new<E>(severity: Severity, error: E) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::from(error).with_severity(severity)
    }

    /// `error` with [`Severity::Ignore`].
    pub fn ignore<E>(error: E) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::new(Severity::Ignore, error)
    }

    /// `error` with [`Severity::Trace`].
    pub fn trace<E>(error: E) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::new(Severity::Trace, error)
    }

    /// `error` with [`Severity::Debug`].
    pub fn debug<E>(error: E) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::new(Severity::Debug, error)
    }

    /// `error` with [`Severity::Info`].
    pub fn info<E>(error: E) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::new(Severity::Info, error)
    }

    /// `error` with [`Severity::Warning`].
    pub fn warning<E>(error: E) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::new(Severity::Warning, error)
    }

    /// `error` with [`Severity::Error`].
    pub fn error<E>(error: E) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::new(Severity::Error, error)
    }

    /// `error` with [`Severity::Panic`], standing for a caught panic whose
    /// `payload` the [`panic`](super::panic) handler resumes.
    pub fn panic<E>(error: E, payload: Box<dyn Any + Send>) -> Self
    where
        Box<dyn Error + Send + Sync>: From<E>,
    {
        Self::new(Severity::Panic, error).with_payload(payload)
    }

    /// Whether the error is an `E`.
    pub fn is<E: Error + 'static>(&self) -> bool {
        self.inner.error.is::<E>()
    }

    /// The error as an `E`, if it is one.
    pub fn downcast_ref<E: Error + 'static>(&self) -> Option<&E> {
        self.inner.error.downcast_ref::<E>()
    }

    /// The error's severity.
    pub fn severity(&self) -> Severity {
        self.inner.severity
    }

    /// The error with its severity set to `severity`.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.inner.severity = severity;
        self
    }

    /// The error with the payload of the panic it stands for.
    pub fn with_payload(mut self, payload: Box<dyn Any + Send>) -> Self {
        self.inner.panic_payload = Some(Mutex::new(payload));
        self
    }

    /// Takes the payload of the panic the error stands for, if any.
    pub fn take_payload(&mut self) -> Option<Box<dyn Any + Send>> {
        self.inner
            .panic_payload
            .take()
            .map(|payload| payload.into_inner().unwrap_or_else(|p| p.into_inner()))
    }
}

impl<E> From<E> for BevyError
where
    Box<dyn Error + Send + Sync + 'static>: From<E>,
{
    // Errors are the rare path: keep `?` small where it is used.
    #[cold]
    fn from(error: E) -> Self {
        BevyError {
            inner: Box::new(InnerBevyError {
                error: error.into(),
                context: Vec::new(),
                severity: Severity::Panic,
                panic_payload: None,
            }),
        }
    }
}

impl Display for BevyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let context = &self.inner.context;
        match context.as_slice() {
            [] => write!(f, "{}", self.inner.error),
            [only] => write!(f, "{}: {}", only.trim(), self.inner.error),
            [inner @ .., outermost] => {
                write!(f, "{}\n\nCaused by:", outermost.trim())?;
                for message in inner.iter().rev() {
                    write!(f, "\n\t{}", message.trim())?;
                }
                write!(f, "\n\t{}", self.inner.error)
            }
        }
    }
}

impl Debug for BevyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.inner.error)?;
        if !self.inner.context.is_empty() {
            write!(f, "\ncontext: {:?}", self.inner.context)?;
        }
        Ok(())
    }
}

/// Sets the [`Severity`] of a `Result`'s error, converting it into a
/// [`BevyError`].
///
/// ```
/// use ecs::error::{ResultSeverityExt, Severity};
///
/// let result: Result<u32, _> = "x".parse::<u32>().warn();
/// assert_eq!(result.unwrap_err().severity(), Severity::Warning);
/// ```
pub trait ResultSeverityExt<T, E>: Sized {
    /// The error, with `severity`.
    fn with_severity(self, severity: Severity) -> Result<T, BevyError>;

    /// The error, with the severity `f` gives it.
    fn map_severity(self, f: impl FnOnce(&E) -> Severity) -> Result<T, BevyError>;

    /// The error, with [`Severity::Ignore`].
    fn ignore(self) -> Result<T, BevyError> {
        self.with_severity(Severity::Ignore)
    }

    /// The error, with [`Severity::Trace`].
    fn trace(self) -> Result<T, BevyError> {
        self.with_severity(Severity::Trace)
    }

    /// The error, with [`Severity::Debug`].
    fn debug(self) -> Result<T, BevyError> {
        self.with_severity(Severity::Debug)
    }

    /// The error, with [`Severity::Info`].
    fn info(self) -> Result<T, BevyError> {
        self.with_severity(Severity::Info)
    }

    /// The error, with [`Severity::Warning`].
    fn warn(self) -> Result<T, BevyError> {
        self.with_severity(Severity::Warning)
    }

    /// The error, with [`Severity::Error`].
    fn error(self) -> Result<T, BevyError> {
        self.with_severity(Severity::Error)
    }

    /// The error, with [`Severity::Panic`].
    fn panic(self) -> Result<T, BevyError> {
        self.with_severity(Severity::Panic)
    }
}

impl<T, E: Into<BevyError>> ResultSeverityExt<T, E> for Result<T, E> {
    fn with_severity(self, severity: Severity) -> Result<T, BevyError> {
        self.map_err(|e| e.into().with_severity(severity))
    }

    fn map_severity(self, f: impl FnOnce(&E) -> Severity) -> Result<T, BevyError> {
        self.map_err(|e| {
            let severity = f(&e);
            e.into().with_severity(severity)
        })
    }
}

/// Adds a context message to a `Result`'s error (or turns a `None` into
/// an error with the message): the error displays as the message,
/// followed by what caused it.
///
/// ```
/// use ecs::error::ContextExt;
///
/// let error = "x".parse::<u32>().context("reading the width").unwrap_err();
/// assert_eq!(error.to_string(), "reading the width: invalid digit found in string");
/// let missing = None::<u32>.context("no width").unwrap_err();
/// assert_eq!(missing.to_string(), "no width");
/// ```
pub trait ContextExt<T>: Sized {
    /// The error, with `context` added.
    fn context<C>(self, context: C) -> Result<T, BevyError>
    where
        C: Into<Cow<'static, str>>,
    {
        self.with_context(move || context)
    }

    /// The error, with the message `context` makes added; `context` runs
    /// only on an error.
    fn with_context<C>(self, context: impl FnOnce() -> C) -> Result<T, BevyError>
    where
        C: Into<Cow<'static, str>>;
}

impl<T, E: Into<BevyError>> ContextExt<T> for Result<T, E> {
    fn with_context<C>(self, context: impl FnOnce() -> C) -> Result<T, BevyError>
    where
        C: Into<Cow<'static, str>>,
    {
        self.map_err(|error| {
            let mut error = error.into();
            error.inner.context.push(context().into());
            error
        })
    }
}

impl<T> ContextExt<T> for Option<T> {
    fn with_context<C>(self, context: impl FnOnce() -> C) -> Result<T, BevyError>
    where
        C: Into<Cow<'static, str>>,
    {
        self.ok_or_else(|| BevyError::from(context().into()))
    }
}

/// A [`BevyError`] from a message: `bevy_error!("no {}", thing)`, with
/// [`Severity::Panic`], or `bevy_error!(Severity::Warning, "no {}", thing)`.
///
/// ```
/// use ecs::error::Severity;
///
/// let error = ecs::bevy_error!(Severity::Info, "{} missing", "fuel");
/// assert_eq!(error.to_string(), "fuel missing");
/// assert_eq!(error.severity(), Severity::Info);
/// assert_eq!(ecs::bevy_error!("plain").severity(), Severity::Panic);
/// ```
#[macro_export]
macro_rules! bevy_error {
    ($fmt:literal) => {
        $crate::error::BevyError::new($crate::error::Severity::Panic, ::std::format!($fmt))
    };
    ($fmt:literal, $($arg:tt)*) => {
        $crate::error::BevyError::new($crate::error::Severity::Panic, ::std::format!($fmt, $($arg)*))
    };
    ($severity:expr, $fmt:literal) => {
        $crate::error::BevyError::new($severity, ::std::format!($fmt))
    };
    ($severity:expr, $fmt:literal, $($arg:tt)*) => {
        $crate::error::BevyError::new($severity, ::std::format!($fmt, $($arg)*))
    };
}

/// Returns `Err(bevy_error!(..))` from the enclosing function.
///
/// ```
/// fn check(fuel: u32) -> ecs::error::Result {
///     if fuel == 0 {
///         ecs::bail!("out of fuel");
///     }
///     Ok(())
/// }
///
/// assert_eq!(check(0).unwrap_err().to_string(), "out of fuel");
/// ```
#[macro_export]
macro_rules! bail {
    ($($args:tt)+) => {
        return ::std::result::Result::Err($crate::bevy_error!($($args)*))
    };
}

/// Returns `Err(bevy_error!(..))` from the enclosing function unless the
/// condition holds.
///
/// ```
/// fn check(fuel: u32) -> ecs::error::Result {
///     ecs::ensure!(fuel > 0, "out of fuel after {} laps", 3);
///     Ok(())
/// }
///
/// assert!(check(1).is_ok());
/// assert_eq!(check(0).unwrap_err().to_string(), "out of fuel after 3 laps");
/// ```
#[macro_export]
macro_rules! ensure {
    ($condition:expr, $($args:tt)+) => {
        if !$condition {
            $crate::bail!($($args)*);
        }
    };
}
