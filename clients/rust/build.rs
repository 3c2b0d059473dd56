//! Generates the arena.v1 client code from every file of the repository's proto/arena/v1/ with
//! tonic-prost-build: a new game's proto file is picked up with no change here.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let proto_root = manifest.join("../../proto").canonicalize()?;
    let folder = proto_root.join("arena/v1");
    // A folder: cargo reruns this script when any file in it changes, is added or is removed.
    println!("cargo:rerun-if-changed={}", folder.display());
    let mut protos = Vec::new();
    for entry in std::fs::read_dir(&folder)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "proto") {
            println!("cargo:rerun-if-changed={}", path.display());
            protos.push(path);
        }
    }
    protos.sort();
    // SAFETY: build scripts are single-threaded; prost-build reads PROTOC from the environment.
    unsafe { std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    let well_known = protoc_bin_vendored::include_path()?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_transport(false)
        .compile_protos(&protos, &[proto_root, well_known])?;
    Ok(())
}
