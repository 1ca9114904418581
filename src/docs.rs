//! Shell completions and man pages, generated from the clap definition. The checked-in
//! copies under `completions/` and `man/` are written by `d3dfloat generate` and guarded by
//! a test that regenerates them in memory.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;

/// The shells we ship completions for, with their file names.
pub const SHELLS: [(Shell, &str); 5] = [
    (Shell::Bash, "d3dfloat.bash"),
    (Shell::Zsh, "_d3dfloat"),
    (Shell::Fish, "d3dfloat.fish"),
    (Shell::PowerShell, "_d3dfloat.ps1"),
    (Shell::Elvish, "d3dfloat.elv"),
];

/// Every completion file as (file name, contents).
pub fn completions() -> Vec<(String, Vec<u8>)> {
    SHELLS
        .iter()
        .map(|(shell, name)| {
            let mut buf = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "d3dfloat", &mut buf);
            (name.to_string(), buf)
        })
        .collect()
}

/// Every man page as (file name, contents): the tool and each visible subcommand.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut pages = Vec::new();
    let mut render = |name: String, c: clap::Command| {
        let mut buf = Vec::new();
        clap_mangen::Man::new(c)
            .render(&mut buf)
            .expect("writing to memory cannot fail");
        pages.push((name, buf));
    };
    render("d3dfloat.1".to_string(), cmd.clone());
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = format!("d3dfloat-{}", sub.get_name());
        render(format!("{name}.1"), sub.clone().name(name));
    }
    pages
}
