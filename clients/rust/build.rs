//! Generates the arena.v1 client code from the repository's proto/ with tonic-prost-build.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let proto_root = manifest.join("../../proto").canonicalize()?;
    let bot_proto = proto_root.join("arena/v1/bot.proto");
    for file in ["bot", "common", "observation", "game_5211"] {
        println!("cargo:rerun-if-changed={}", proto_root.join(format!("arena/v1/{file}.proto")).display());
    }
    // SAFETY: build scripts are single-threaded; prost-build reads PROTOC from the environment.
    unsafe { std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    let well_known = protoc_bin_vendored::include_path()?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_transport(false)
        .compile_protos(&[bot_proto], &[proto_root, well_known])?;
    Ok(())
}
