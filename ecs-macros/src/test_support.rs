//! What the derives' unit tests share: run a derive on an input, and read
//! its generated code or its error messages as strings.

use syn::DeriveInput;

use crate::Derive;

/// The code `derive` generates for `input`, as one string of tokens.
pub(crate) fn expand(derive: Derive, input: DeriveInput) -> syn::Result<String> {
    derive(&input).map(|tokens| tokens.to_string())
}

/// The message of each error `derive` reports for `input`, in order;
/// panics when it reports none.
pub(crate) fn messages(derive: Derive, input: DeriveInput) -> Vec<String> {
    messages_of(expand(derive, input).unwrap_err())
}

/// The message of each error combined in `error`, in order.
pub(crate) fn messages_of(error: syn::Error) -> Vec<String> {
    error.into_iter().map(|error| error.to_string()).collect()
}
