//! `#[require(..)]`: the components that inserting this one also inserts
//! when the entity lacks them.
//!
//! ```text
//! #[require(Position, Velocity = Velocity(1.0, 0.0), Health(100))]
//!           │         │                              └─ shorthand for `Health = Health(100)`
//!           │         └─ made by the expression
//!           └─ made by `Default::default`
//! ```
//!
//! As in bevy_ecs, a bare `Mode::Fast` or `Limit::MAX` (the last two
//! segments upper-case) is a value of `Mode` or `Limit`, and a call whose
//! last segment starts lower-case (`Speed::new(2.0)`) a constructor of the
//! type before it.
//!
//! The attribute may appear several times; the entries are registered in
//! the order written. Whether a required type is a component, and whether
//! it has `Default` when no expression is given, is left to the compiler,
//! whose error is spanned at the type. Cycles (`A` requires `B` requires
//! `A`) can only be seen across types, so the runtime reports them when the
//! component is registered.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprCall, ExprPath, ExprStruct, Path, PathArguments, Token, Type};

use crate::errors::Errors;

/// One entry of `#[require(..)]`.
pub(super) struct Required {
    /// The required component.
    ty: Type,
    /// What makes its value; `Default::default` when `None`.
    value: Option<Expr>,
}

/// How an entry is written, for the parse error.
const USAGE: &str = "expected a component type, `Type = expression` or `Type(..)`: \
                     `#[require(Position, Velocity = Velocity(1.0, 0.0))]`";

impl Parse for Required {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // `Type` and `Type = expr`: a type, then `=`, `,` or the end.
        let fork = input.fork();
        if let Ok(ty) = fork.parse::<Type>() {
            if !is_fn_sugar(&ty)
                && (fork.is_empty() || fork.peek(Token![,]) || fork.peek(Token![=]))
            {
                input.parse::<Type>()?;
                let value = if input.peek(Token![=]) {
                    input.parse::<Token![=]>()?;
                    Some(input.parse::<Expr>()?)
                } else if let Some(owner) = bare_path(&ty).and_then(|p| value_owner(p, false)) {
                    // `Mode::Fast` or `Limit::MAX`: the value of the type
                    // before it, as in bevy_ecs.
                    let value = syn::parse2::<Expr>(ty.to_token_stream())?;
                    return Ok(Self {
                        ty: path_type(owner),
                        value: Some(value),
                    });
                } else {
                    None
                };
                return Ok(Self { ty, value });
            }
        }
        // `Type(..)` and `Type { .. }`: the value names its own type, as in
        // bevy_ecs.
        let expr: Expr = input
            .parse()
            .map_err(|error| syn::Error::new(error.span(), USAGE))?;
        let path = match &expr {
            Expr::Call(ExprCall { func, .. }) => match &**func {
                Expr::Path(ExprPath {
                    qself: None, path, ..
                }) => Some(path.clone()),
                _ => None,
            },
            Expr::Struct(ExprStruct {
                qself: None, path, ..
            }) => Some(path.clone()),
            _ => None,
        };
        match path {
            Some(path) => {
                // `Shape::Square(2.0)`, `Shape::Circle { .. }` or
                // `Speed::new(2.0)`: a value of the type before the last
                // segment.
                let call = matches!(expr, Expr::Call(_));
                let ty = value_owner(&path, call).unwrap_or(path);
                Ok(Self {
                    ty: path_type(ty),
                    value: Some(expr),
                })
            }
            None => Err(syn::Error::new_spanned(expr, USAGE)),
        }
    }
}

/// The path of a type written without `<T as Trait>` qualification.
fn bare_path(ty: &Type) -> Option<&Path> {
    match ty {
        Type::Path(syn::TypePath { qself: None, path }) => Some(path),
        _ => None,
    }
}

fn path_type(path: Path) -> Type {
    Type::Path(syn::TypePath { qself: None, path })
}

/// The type whose value `path` names, by bevy_ecs's rule: an enum
/// variant or associated constant when its last two segments start
/// upper-case (`Mode::Fast`, `Shape::Square(..)`, `Limit::<u8>::MAX`), a
/// constructor when `call` and its last segment starts lower-case
/// (`Speed::new(..)`); `None` when the path names the type itself
/// (`Health`, `module::Health(..)`).
fn value_owner(path: &Path, call: bool) -> Option<Path> {
    let n = path.segments.len();
    if n < 2 || !path.segments[n - 1].arguments.is_none() {
        return None;
    }
    let last = &path.segments[n - 1].ident;
    let variant = starts_uppercase(last) && starts_uppercase(&path.segments[n - 2].ident);
    if !(variant || (call && starts_lowercase(last))) {
        return None;
    }
    let mut owner = path.clone();
    owner.segments.pop();
    owner.segments.pop_punct();
    Some(owner)
}

fn starts_uppercase(ident: &Ident) -> bool {
    ident.to_string().starts_with(|c: char| c.is_uppercase())
}

fn starts_lowercase(ident: &Ident) -> bool {
    ident.to_string().starts_with(|c: char| c.is_lowercase())
}

/// `Name(A, B)` parses as a type (the `Fn(A) -> B` sugar), but in
/// `#[require(..)]` it is always the shorthand for `Name = Name(A, B)`.
fn is_fn_sugar(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| matches!(segment.arguments, PathArguments::Parenthesized(_))),
        _ => false,
    }
}

/// Reads every `#[require(..)]` in `attrs`, recording each problem in
/// `errors`. `ident` is the deriving type, which cannot require itself.
pub(super) fn parse(attrs: &[Attribute], ident: &Ident, errors: &mut Errors) -> Vec<Required> {
    let mut required: Vec<Required> = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("require")) {
        let entries = attr.meta.require_list().and_then(|list| {
            list.parse_args_with(Punctuated::<Required, Token![,]>::parse_terminated)
        });
        let Some(entries) = errors.take(entries) else {
            continue;
        };
        if entries.is_empty() {
            errors.push_spanned(
                attr,
                "`#[require(..)]` needs at least one component: \
                 `#[require(Position, Velocity = Velocity(1.0, 0.0))]`",
            );
        }
        for entry in entries {
            let name = type_name(&entry.ty);
            if is_self(&entry.ty, ident) {
                errors.push_spanned(
                    &entry.ty,
                    format!("`{ident}` cannot require itself: inserting it would insert it again"),
                );
            } else if required.iter().any(|r| type_name(&r.ty) == name) {
                errors.push_spanned(&entry.ty, format!("`{name}` is required twice"));
            } else {
                required.push(entry);
            }
        }
    }
    required
}

/// The type as the user wrote it, for messages and duplicate checks.
fn type_name(ty: &Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "")
}

/// `Self`, or the deriving type's own name without arguments.
fn is_self(ty: &Type, ident: &Ident) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    path.qself.is_none()
        && (path.path.is_ident("Self") || path.path.is_ident(ident))
        && path.path.segments.len() == 1
}

/// The registrar parameter's name: prefixed, so that a value expression the
/// user wrote never resolves to it.
const REGISTRAR: &str = "__ecs_required";

/// `fn register_required_components` registering each entry; nothing when
/// there is none.
pub(super) fn generate(required: &[Required], krate: &Path) -> TokenStream {
    if required.is_empty() {
        return TokenStream::new();
    }
    let registrar = Ident::new(REGISTRAR, Span::call_site());
    let calls = required.iter().map(|Required { ty, value }| {
        // Spanned at the type, receiver included: "not a component" and "no
        // `Default`" are errors at the type the user wrote, and only there.
        let span = ty.span();
        let registrar = Ident::new(REGISTRAR, span);
        let make = match value {
            Some(value) => quote!(|| #value),
            None => quote_spanned! {span=> <#ty as ::core::default::Default>::default},
        };
        quote_spanned! {span=> #registrar.register::<#ty>(#make);}
    });
    quote! {
        fn register_required_components(
            #registrar: &mut #krate::component::RequiredComponentsRegistrar<'_>,
        ) {
            #(#calls)*
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::{parse_quote, DeriveInput};

    use super::*;
    use crate::test_support::messages_of;

    fn parse_input(input: DeriveInput) -> Result<Vec<Required>, Vec<String>> {
        let mut errors = Errors::default();
        let required = parse(&input.attrs, &input.ident, &mut errors);
        match errors.check() {
            Ok(()) => Ok(required),
            Err(error) => Err(messages_of(error)),
        }
    }

    fn entries(input: DeriveInput) -> Vec<(String, Option<String>)> {
        let required = parse_input(input).unwrap_or_else(|messages| panic!("{messages:?}"));
        required
            .iter()
            .map(|r| {
                (
                    type_name(&r.ty),
                    r.value
                        .as_ref()
                        .map(|v| v.to_token_stream().to_string().replace(' ', "")),
                )
            })
            .collect()
    }

    #[test]
    fn types_values_and_shorthands() {
        let input = parse_quote! {
            #[require(A, B = B(1), C<u8> = C::new(), D(2, 3))]
            #[require(E { x: 1 }, path::F, G(H, I),)]
            struct S;
        };
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(
            entries(input),
            [
                ("A".to_owned(), None),
                ("B".to_owned(), some("B(1)")),
                ("C<u8>".to_owned(), some("C::new()")),
                ("D".to_owned(), some("D(2,3)")),
                ("E".to_owned(), some("E{x:1}")),
                ("path::F".to_owned(), None),
                ("G".to_owned(), some("G(H,I)")),
            ]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let input = parse_quote! {
            #[require()]
            #[require(A, Self, S, A = A(1))]
            #[require(1 + 2)]
            #[require]
            struct S;
        };
        assert_eq!(
            parse_input(input).err().unwrap(),
            [
                "`#[require(..)]` needs at least one component: `#[require(Position, Velocity = Velocity(1.0, 0.0))]`",
                "`S` cannot require itself: inserting it would insert it again",
                "`S` cannot require itself: inserting it would insert it again",
                "`A` is required twice",
                USAGE,
                "expected attribute arguments in parentheses: `require(...)`",
            ]
        );
    }

    #[test]
    fn defaults_and_expressions_are_generated_in_order() {
        let input: DeriveInput = parse_quote! {
            #[require(A, B = B(1))]
            struct S;
        };
        let required = parse_input(input).unwrap_or_else(|m| panic!("{m:?}"));
        let out = generate(&required, &parse_quote!(::ecs)).to_string();
        assert_eq!(
            out,
            "fn register_required_components (__ecs_required : & mut :: ecs :: component :: \
             RequiredComponentsRegistrar < '_ > ,) { \
             __ecs_required . register :: < A > (< A as :: core :: default :: Default > :: default) ; \
             __ecs_required . register :: < B > (|| B (1)) ; }"
        );
    }

    #[test]
    fn values_of_a_type_are_read_as_bevy_ecs_reads_them() {
        let input: DeriveInput = parse_quote! {
            #[require(
                Mode::Fast,
                Limit::<u8>::MAX,
                Shape::Square(2.0),
                crate::Shape2::Circle { r: 1.0 },
                Speed::new(2.0),
                module::Health(1),
                self::x::Foo { a: 1 },
                module::Plain,
                A::B = A::B(3)
            )]
            struct S;
        };
        let types: Vec<String> = entries(input).into_iter().map(|(ty, _)| ty).collect();
        assert_eq!(
            types,
            [
                "Mode",
                "Limit::<u8>",
                "Shape",
                "crate::Shape2",
                "Speed",
                "module::Health",
                "self::x::Foo",
                "module::Plain",
                "A::B",
            ]
        );
    }

    #[test]
    fn nothing_required_generates_nothing() {
        assert!(generate(&[], &parse_quote!(::ecs)).is_empty());
    }
}
