use super::*;
use crate::change_detection::Tick;

#[derive(Debug, PartialEq)]
struct Fuel(u32);

impl std::fmt::Display for Fuel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} units of fuel left", self.0)
    }
}

impl std::error::Error for Fuel {}

fn system_context() -> ErrorContext {
    ErrorContext::System {
        name: "game::burn".into(),
        last_run: Tick::new(0),
    }
}

#[test]
fn question_mark_keeps_the_error_and_its_type() {
    fn burn() -> Result<u32> {
        Err(Fuel(3))?
    }
    let error = burn().unwrap_err();
    assert!(error.is::<Fuel>());
    assert!(!error.is::<std::io::Error>());
    assert_eq!(error.downcast_ref::<Fuel>(), Some(&Fuel(3)));
    assert_eq!(error.to_string(), "3 units of fuel left");
    assert_eq!(error.severity(), Severity::Panic);
}

#[test]
fn severity_constructors_and_extension() {
    assert_eq!(BevyError::warning(Fuel(1)).severity(), Severity::Warning);
    assert_eq!(BevyError::ignore("x").severity(), Severity::Ignore);
    assert_eq!(
        BevyError::new(Severity::Info, "x").severity(),
        Severity::Info
    );
    let mapped: Result<(), BevyError> = Err(Fuel(0)).map_severity(|fuel: &Fuel| match fuel.0 {
        0 => Severity::Error,
        _ => Severity::Trace,
    });
    assert_eq!(mapped.unwrap_err().severity(), Severity::Error);
    assert_eq!(
        Err::<(), _>(Fuel(2)).debug().unwrap_err().severity(),
        Severity::Debug
    );
}

#[test]
fn context_messages_read_outermost_first() {
    let error = Err::<(), _>(Fuel(0))
        .context("starting the engine")
        .context("taking off")
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "taking off\n\nCaused by:\n\tstarting the engine\n\t0 units of fuel left"
    );
}

#[test]
fn the_panic_handler_names_the_kind_the_name_and_the_error() {
    let payload =
        std::panic::catch_unwind(|| panic(BevyError::from(Fuel(5)), system_context())).unwrap_err();
    let message = payload.downcast_ref::<String>().unwrap();
    assert_eq!(
        message,
        "Encountered an error in system `game::burn`: 5 units of fuel left"
    );
}

#[test]
fn the_panic_handler_resumes_a_caught_panic() {
    let error = BevyError::panic("it panicked", Box::new(17u8));
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        panic(error, system_context())
    }))
    .unwrap_err();
    assert_eq!(payload.downcast_ref::<u8>(), Some(&17));
}

#[test]
fn match_severity_panics_only_for_panic_severity() {
    match_severity(BevyError::warning(Fuel(1)), system_context());
    match_severity(BevyError::ignore(Fuel(1)), system_context());
    let result = std::panic::catch_unwind(|| {
        match_severity(BevyError::from(Fuel(1)), system_context());
    });
    assert!(result.is_err());
}

#[test]
fn contexts_name_their_kind() {
    let observer = ErrorContext::Observer {
        name: "on_hit".into(),
        last_run: Tick::new(0),
    };
    assert_eq!((observer.kind(), &*observer.name()), ("observer", "on_hit"));
    let command = ErrorContext::Command {
        name: "Spawn".into(),
    };
    assert_eq!(command.kind(), "command");
    assert_eq!(command.to_string(), "Command `Spawn` failed");
    assert_eq!(system_context().to_string(), "System `game::burn` failed");
}
