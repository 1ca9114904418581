// KTX2 files through ktx-parse (Don McCurdy's KTX 2.0 reader and writer, an independent
// implementation used by glTF-Transform), for tests/container_interop.rs:
//
//   node ktx_parse.mjs read FILE         prints the container as JSON: the header fields,
//                                         the Basic descriptor, the keys, each level's bytes
//                                         as hex (largest level first)
//   node ktx_parse.mjs write OUT SPEC     writes a KTX2 file from SPEC (JSON: vkFormat,
//                                         typeSize, pixelWidth, pixelHeight, pixelDepth,
//                                         layerCount, faceCount, levels as hex, largest
//                                         first, and the descriptor: bytesPlane0, samples,
//                                         and optionally colorModel and texelBlockDimension
//                                         (RGBSDA and 1x1x1x1 by default))
//
// The module is found in the node_modules folder NODE_PATH names (scripts/test installs
// it under target/node): an ES module import does not search NODE_PATH itself. Exits 2
// when it is missing.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

let ktx;
try {
  const entry = join(process.env.NODE_PATH ?? "", "ktx-parse", "dist", "index.mjs");
  ktx = await import(pathToFileURL(entry).href);
} catch (e) {
  console.error(`ktx-parse is missing (${e.message}): scripts/test installs it`);
  process.exit(2);
}

const hex = (u8) => Buffer.from(u8).toString("hex");
const [mode, path, specPath] = process.argv.slice(2);

if (mode === "read") {
  const c = ktx.read(new Uint8Array(readFileSync(path)));
  const dfd = c.dataFormatDescriptor[0];
  const keyValue = {};
  for (const [k, v] of Object.entries(c.keyValue)) {
    keyValue[k] = typeof v === "string" ? v : hex(v);
  }
  console.log(JSON.stringify({
    vkFormat: c.vkFormat,
    typeSize: c.typeSize,
    pixelWidth: c.pixelWidth,
    pixelHeight: c.pixelHeight,
    pixelDepth: c.pixelDepth,
    layerCount: c.layerCount,
    faceCount: c.faceCount,
    levelCount: c.levelCount,
    supercompressionScheme: c.supercompressionScheme,
    dfd: {
      colorModel: dfd.colorModel,
      colorPrimaries: dfd.colorPrimaries,
      transferFunction: dfd.transferFunction,
      texelBlockDimension: dfd.texelBlockDimension,
      bytesPlane: dfd.bytesPlane,
      samples: dfd.samples,
    },
    keyValue,
    levels: c.levels.map((l) => ({
      data: hex(l.levelData),
      uncompressedByteLength: l.uncompressedByteLength,
    })),
  }));
} else if (mode === "write") {
  const spec = JSON.parse(readFileSync(specPath, "utf8"));
  const c = ktx.createDefaultContainer();
  for (const k of ["vkFormat", "typeSize", "pixelWidth", "pixelHeight", "pixelDepth",
                   "layerCount", "faceCount"]) {
    c[k] = spec[k];
  }
  c.levelCount = spec.levels.length;
  c.levels = spec.levels.map((h) => {
    const levelData = new Uint8Array(Buffer.from(h, "hex"));
    return { levelData, uncompressedByteLength: levelData.byteLength };
  });
  const dfd = c.dataFormatDescriptor[0];
  dfd.colorModel = spec.colorModel ?? ktx.KHR_DF_MODEL_RGBSDA;
  dfd.colorPrimaries = ktx.KHR_DF_PRIMARIES_BT709;
  dfd.transferFunction = ktx.KHR_DF_TRANSFER_LINEAR;
  dfd.texelBlockDimension = spec.texelBlockDimension ?? [0, 0, 0, 0];
  dfd.bytesPlane = [spec.bytesPlane0, 0, 0, 0, 0, 0, 0, 0];
  dfd.samples = spec.samples;
  c.keyValue = { KTXwriter: "ktx-parse (tests/js/ktx_parse.mjs)" };
  writeFileSync(path, ktx.write(c));
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(1);
}
