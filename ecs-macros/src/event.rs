//! `#[derive(Event)]`: the impl that lets a type be triggered and
//! observed, with bevy's default trigger (`GlobalTrigger`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::marker::MarkerInput;

/// Expands `#[derive(Event)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(MarkerInput::parse(input, "Event")?.generate_with(
        quote!(event::Event),
        |krate| quote!(type Trigger<'a> = #krate::event::GlobalTrigger;),
    ))
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn marker_impl_keeps_generics() {
        let input = parse_quote!(
            enum E<T: Send + Sync + 'static, const N: usize>
            where
                T: Clone,
            {
                A([T; N]),
                B,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert_eq!(
            out,
            "# [automatically_derived] impl < T : Send + Sync + 'static , const N : usize > \
             :: ecs :: event :: Event for E < T , N > where T : Clone , \
             Self : :: core :: marker :: Send + :: core :: marker :: Sync + 'static \
             { type Trigger < 'a > = :: ecs :: event :: GlobalTrigger ; }"
        );
    }

    #[test]
    fn crate_path_replaces_the_root() {
        let input = parse_quote!(
            #[ecs(crate = ecs_core)]
            union U {
                a: u32,
                b: f32,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains("impl ecs_core :: event :: Event for U")
                && out.contains("ecs_core :: event :: GlobalTrigger"),
            "{out}"
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let input = parse_quote!(
            struct E<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Event` types must be 'static: remove the lifetime parameter `'a`"
        );
    }
}
