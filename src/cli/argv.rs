//! The argument vector before clap reads it: negative values among the positionals.

use super::Cli;

/// Whether a token is a negative value (`-1.5`, `-0`, `-inf`, `-infinity`, `-nan`, `-max`,
/// `-min-subnormal`, `-epsilon`, `-0x1p-3`) rather than an option. Anything the value
/// parser reads counts, and so does anything that starts like a number, so that a bad
/// number gets the value parser's error rather than clap's.
fn is_negative_value(token: &str) -> bool {
    use crate::input::{Constants, InputError, parse_value};
    let Some(rest) = token.strip_prefix('-') else {
        return false;
    };
    rest.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        || matches!(
            parse_value(token, Constants::Float(&crate::format::F32)),
            Ok(_) | Err(InputError::NoSuchConstant { .. })
        )
}

/// Lets negative values stand anywhere among the positionals: `encode -inf --plain` and
/// `op add -max 1` mean what they say. Clap would read `-inf` as the short options `-i -n
/// -f`, and a positional that accepts hyphen values swallows every later option, so when
/// negative values are present the subcommand's options are moved ahead of a `--` and the
/// positionals follow it in their original order. Which tokens are options (and which take
/// a value) is read from the clap definition itself.
pub fn normalize_args(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let texts: Option<Vec<&str>> = args.iter().map(|a| a.to_str()).collect();
    let Some(texts) = texts else {
        return args;
    };
    if !texts.iter().skip(1).any(|t| is_negative_value(t)) {
        return args;
    }
    let root = Cli::command();
    // Options of a command: (long name, short, how many values follow it).
    let options = |cmd: &clap::Command| -> Vec<(Option<String>, Option<char>, usize)> {
        cmd.get_arguments()
            .filter(|a| !a.is_positional())
            .map(|a| {
                let values = if a.get_action().takes_values() {
                    a.get_num_args().map_or(1, |r| r.min_values().max(1))
                } else {
                    0
                };
                (a.get_long().map(str::to_string), a.get_short(), values)
            })
            .collect()
    };
    let root_opts = options(&root);
    // Find the subcommand, stepping over root options.
    let mut i = 1;
    let sub = loop {
        let Some(t) = texts.get(i) else {
            return args;
        };
        if let Some(sub) = root.find_subcommand(t) {
            break sub;
        }
        match option_width(t, texts.get(i + 1), &root_opts) {
            Some(w) => i += w,
            None => return args,
        }
    };
    let sub_index = i;
    let mut all_opts = options(sub);
    all_opts.extend(root_opts);
    let (mut opts, mut positionals): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    let mut j = sub_index + 1;
    while j < texts.len() {
        let t = texts[j];
        if t == "--" {
            positionals.extend(&texts[j + 1..]);
            break;
        }
        if is_negative_value(t) {
            positionals.push(t);
            j += 1;
            continue;
        }
        match option_width(t, texts.get(j + 1), &all_opts) {
            Some(w) => {
                opts.extend(&texts[j..(j + w).min(texts.len())]);
                j += w;
            }
            None => {
                positionals.push(t);
                j += 1;
            }
        }
    }
    let mut out: Vec<std::ffi::OsString> = texts[..=sub_index].iter().map(Into::into).collect();
    out.extend(opts.into_iter().map(Into::into));
    out.push("--".into());
    out.extend(positionals.into_iter().map(Into::into));
    out
}

/// How many tokens an option occupies (1, plus its values when they are the next tokens:
/// `--files A B` takes 3, even when a value looks like a negative number), or `None` when
/// the token is not an option. Unknown `-x` tokens count as options, so clap reports them.
fn option_width(
    token: &str,
    _next: Option<&&str>,
    opts: &[(Option<String>, Option<char>, usize)],
) -> Option<usize> {
    if let Some(long) = token.strip_prefix("--") {
        let (name, attached) = match long.split_once('=') {
            Some((n, _)) => (n, true),
            None => (long, false),
        };
        let values = opts
            .iter()
            .find(|(l, _, _)| l.as_deref() == Some(name))
            .map_or(0, |(_, _, v)| *v);
        return Some(if attached { 1 } else { 1 + values });
    }
    let mut chars = token.strip_prefix('-')?.chars();
    let c = chars.next()?;
    let values = opts
        .iter()
        .find(|(_, s, _)| *s == Some(c))
        .map_or(0, |(_, _, v)| *v);
    Some(if chars.as_str().is_empty() {
        1 + values
    } else {
        1
    })
}
