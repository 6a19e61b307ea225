//! `blosc2 manpage`: the man page blosc2(1), generated from the clap
//! definition so that it cannot drift from `--help`. clap_mangen writes the
//! name, synopsis and the list of commands; each command then gets a
//! section of its own with its description and options.

use std::io::Write;

use clap::Command;

/// Escape text for roff: backslashes, and hyphens that must stay ASCII
/// hyphens (for copying options out of the page).
fn roff(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = line.replace('\\', "\\e").replace('-', "\\-");
        // A line starting with . or ' would be a roff request.
        if line.starts_with('.') || line.starts_with('\'') {
            out.push_str("\\&");
        }
        out.push_str(if line.is_empty() { ".PP" } else { &line });
        out.push('\n');
    }
    out
}

/// One `.SH` section per command, with its options.
fn command_section(out: &mut String, path: &str, cmd: &Command) {
    out.push_str(&format!(".SH \"{}\"\n", path.to_uppercase()));
    if let Some(usage) = cmd.get_overridden_usage() {
        out.push_str(&format!(".B {}\n.PP\n", roff(&usage.to_string()).trim_end()));
    }
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        out.push_str(&roff(&about.to_string()));
    }
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = arg.get_long() else { continue };
        let mut head = match arg.get_short() {
            Some(c) => format!("\\fB\\-{c}\\fR, \\fB\\-\\-{long}\\fR"),
            None => format!("\\fB\\-\\-{long}\\fR"),
        };
        if arg.get_action().takes_values() {
            if let Some(names) = arg.get_value_names() {
                let names: Vec<String> = names.iter().map(|n| roff(n.as_str()).trim_end().to_string()).collect();
                head.push_str(&format!(" \\fI{}\\fR", names.join(" ")));
            }
        }
        out.push_str(&format!(".TP\n{head}\n"));
        if let Some(help) = arg.get_help() {
            out.push_str(&roff(&help.to_string()));
        }
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        command_section(out, &format!("{path} {}", sub.get_name()), sub);
    }
}

/// Write the whole page in roff to `out`.
pub fn render(cmd: Command, out: &mut impl Write) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    let mut text = String::new();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        command_section(&mut text, &format!("blosc2 {}", sub.get_name()), sub);
    }
    text.push_str(".SH \"EXIT STATUS\"\n");
    text.push_str(&roff(
        "0 ok; 1 corrupt input, a failed check or a failed operation; 2 bad arguments or missing files.",
    ));
    out.write_all(text.as_bytes())?;
    man.render_version_section(out)
}
