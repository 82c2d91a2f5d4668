//! `#[derive(Message)]`: the marker impl that lets a type be written to
//! and read from a `Messages<M>` buffer.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::marker::MarkerInput;

/// Expands `#[derive(Message)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(MarkerInput::parse(input, "Message")?.generate_bounded(quote!(message::Message)))
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn marker_impl_names_the_message_trait() {
        let input = parse_quote!(
            struct M<T: Send + Sync + 'static>(T);
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains(
                "impl < T : Send + Sync + 'static > :: ecs :: message :: Message for M < T > where"
            ),
            "{out}"
        );
    }

    #[test]
    fn crate_attribute_moves_the_path() {
        let input = parse_quote!(
            #[ecs(crate = ecs_core)]
            enum M {
                A,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains("ecs_core :: message :: Message for M"),
            "{out}"
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let input = parse_quote!(
            struct M<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Message` types must be 'static: remove the lifetime parameter `'a`"
        );
    }
}
