//! `#[derive(Resource)]`: the marker impl.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::marker::MarkerInput;

/// Expands `#[derive(Resource)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(MarkerInput::parse(input, "Resource")?.generate_bounded(quote!(resource::Resource)))
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn marker_impl_keeps_generics() {
        let input = parse_quote!(
            struct R<T: Send + Sync + 'static>(T);
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains(
                "impl < T : Send + Sync + 'static > :: ecs :: resource :: Resource for R < T > where"
            ),
            "{out}"
        );
    }

    #[test]
    fn unbounded_parameters_get_the_supertraits_on_self() {
        let input = parse_quote!(
            struct R<T>(T)
            where
                T: Clone;
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains(
                "for R < T > where T : Clone , Self : :: core :: marker :: Send + \
                 :: core :: marker :: Sync + 'static {"
            ),
            "{out}"
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let input = parse_quote!(
            struct R<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Resource` types must be 'static: remove the lifetime parameter `'a`"
        );
    }
}
