
use builtin;
use str;

set edit:completion:arg-completer[d3dfloat] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'd3dfloat'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'d3dfloat'= {
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand decode 'Bits to fields, class and exact value'
            cand encode 'A value to bits, with explicit rounding'
            cand convert 'Bulk-convert binary data: raw little-endian streams, DDS textures, EXR and HDR images'
            cand op 'Evaluate a D3D shader instruction: every result a conforming GPU may return'
            cand ulp-diff 'Distance in ULPs between two values, stdin pairs, or two raw buffers'
            cand probe 'Run the instructions on a Vulkan device and judge every result by the D3D rules'
            cand generate 'Write shell completions or man pages (for packaging and the checked-in copies)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'d3dfloat;decode'= {
            cand -f 'Format of the patterns (or bc6h_uf16, bc6h_sf16: one BC6H block)'
            cand --fmt 'Format of the patterns (or bc6h_uf16, bc6h_sf16: one BC6H block)'
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'d3dfloat;encode'= {
            cand -f 'Target format'
            cand --fmt 'Target format'
            cand -r 'Rounding direction'
            cand --rounding 'Rounding direction'
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --saturate 'Keep finite values finite: overflow gives the largest finite value in every mode'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'d3dfloat;convert'= {
            cand --from 'Source format (needed for raw input; a container knows its own)'
            cand --to 'Target format (or bc6h_uf16, bc6h_sf16: BC6H blocks, from a container input)'
            cand --quality 'BC6H output: how hard the encoder looks (fast: 1 partition, the finest mode precision that fits; normal: 4 partitions, one precision finer too; slow: 12 partitions, more precisions, more refinement)'
            cand -r 'Rounding direction'
            cand --rounding 'Rounding direction'
            cand --channels 'Float channels per texel beside a packed format: 3 (RGB) or 4 (RGBA) [default: 3 raw, 4 DDS]; from a container''s floats, the first N (1 to 4)'
            cand --compression 'Compression of an .exr output'
            cand -o 'Output file, or - for stdout [default: stdout]'
            cand --output 'Output file, or - for stdout [default: stdout]'
            cand --max-pixels 'Largest image an .hdr or .exr header may declare, in pixels (width x height)'
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --saturate 'Keep finite values finite: overflow gives the largest finite value in every mode'
            cand --raw 'Write raw data whatever the output''s name'
            cand --no-progress 'Never show a progress bar'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'d3dfloat;op'= {
            cand -f 'Working format: f32, f16 or f64 (the double instruction names imply f64)'
            cand --fmt 'Working format: f32, f16 or f64 (the double instruction names imply f64)'
            cand --rules 'Rule set: d3d11 (Direct3D 11 and later) or d3d10 (1 ULP for 32-bit arithmetic)'
            cand --check 'Check a claimed result (bits or value): exit 0 if it conforms, 1 if not'
            cand --asm 'A sequence of instructions in shader assembly (''dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x''): the interval each output component may take (with --input, --output)'
            cand --expr 'An HLSL expression (''normalize(float3(1, 2, 3))''), expanded into the sequences compilers emit: the interval each result component may take'
            cand --input 'With --asm: an input register''s values, v0=1,2,3 (values or bit patterns); with --expr: a variable''s, NAME=1,2,3. Repeat for each'
            cand --output 'With --asm: the register (and components) reported, r1 or r1.xy; the last destination written when absent'
            cand --operands 'Judge raw operand buffers, one file per source operand (with --results); with --asm or --expr, REG=FILE (or NAME=FILE) per input, its components interleaved'
            cand --results 'The results buffer that goes with --operands'
            cand --violations 'With --operands: write every violating line as ''OP ARG... = RESULT  # index N'' to FILE (N: the line''s element index in the buffers)'
            cand --limit 'With --list: the most violating lines listed'
            cand --report 'With --operands: also write the verdict as one self-contained HTML page, with a plot of the error against the input'
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --list 'With --operands and --json or --csv: list each violating line''s index and class (up to --limit)'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'d3dfloat;ulp-diff'= {
            cand -f 'Format of A and B (or of the buffers'' elements)'
            cand --fmt 'Format of A and B (or of the buffers'' elements)'
            cand --max 'Exit 1 when |distance| exceeds N or a NaN is involved'
            cand --abs-tol 'Exit 1 when an element is not within A of the expected value (with --rel-tol: within A + R x |expected|, numpy''s isclose); counted beside --max'
            cand --rel-tol 'Exit 1 when an element is not within R x |expected| of the expected value (plus --abs-tol), as numpy''s isclose(actual, expected, rtol=R, atol=A)'
            cand --files 'Compare two raw little-endian buffers element by element'
            cand --report 'With --files: also write the comparison as one self-contained HTML page (the histogram of distances, and a heat map per pixel with --width)'
            cand --width 'With --files: the raw buffers are images W pixels wide (for the report''s heat map, and the x and y of the elements named)'
            cand --channels 'With --width: elements per pixel (RGB from the first three; a packed word is one)'
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --no-flush 'Count f32 subnormals as values instead of as zero (D3D arithmetic flushes them)'
            cand --list 'With --files: list every element over --max or the tolerance (every difference without them), NaN involved included: index, channel, both patterns, the distance, and for images the pixel''s x and y, before the summary'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'d3dfloat;probe'= {
            cand --device 'Device: an index from --list-devices or part of its name [default: the first]'
            cand --ops 'Instructions to probe, comma-separated [default: all]'
            cand --count 'Input lines per instruction (f16tof32 takes all 65,536 halves from 4096 up)'
            cand --rules 'Rule set: d3d11 (Direct3D 11 and later) or d3d10'
            cand --emit-log 'Write every line as ''OP ARG... = RESULT'' to FILE, for `d3dfloat op --plain < FILE`'
            cand --seed 'Seed of the generated inputs'
            cand --first 'With --exhaustive: only the first N inputs of each sweep'
            cand --range 'With --exhaustive: only inputs START to END (excluded) of each sweep, decimal or 0x hex; an input''s index is its pattern (a << 16 | b for two f16 operands)'
            cand --violations 'With --exhaustive: write each violating line as ''OP ARG... = RESULT  # index N'' to FILE (f16 instructions'' to FILE.f16), for `d3dfloat op --plain < FILE`'
            cand --limit 'Violating lines written (--violations) or listed (--list) per instruction'
            cand --report 'Also write the report as one self-contained HTML page, with a plot of each instruction''s error against its input'
            cand --via 'Path of each shader to the device, comma-separated: direct (SPIR-V written by d3dfloat), vkd3d-shader or dxbc-spirv (DXBC written by d3dfloat, translated by that translator); with several, every instruction runs through each and the report compares them'
            cand --translator-lib 'With --via vkd3d-shader: the vkd3d-shader library to load [default: libvkd3d-shader.so.1 from the system]'
            cand --dump-dxbc 'Write each selected instruction''s DXBC compute shader (sampled and exhaustive forms) into DIR as NAME.FORMAT[.indexed].dxbc, then exit; no device is needed'
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --list-devices 'List the Vulkan devices and exit'
            cand --exhaustive 'Every input instead of samples: all 2^32 f32 patterns of each one-operand instruction, all 65,536 f16 ones, every pair of f16 operands (2^32)'
            cand --list 'With --exhaustive and --json or --csv: list each violating line''s index and class (up to --limit per instruction)'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'d3dfloat;generate'= {
            cand --color 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)'
            cand --plain 'Just the answer, one line per input (stable, for scripts)'
            cand --json 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
            cand --csv 'CSV: a header, then one row per input (stable, for scripts)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'d3dfloat;help'= {
            cand decode 'Bits to fields, class and exact value'
            cand encode 'A value to bits, with explicit rounding'
            cand convert 'Bulk-convert binary data: raw little-endian streams, DDS textures, EXR and HDR images'
            cand op 'Evaluate a D3D shader instruction: every result a conforming GPU may return'
            cand ulp-diff 'Distance in ULPs between two values, stdin pairs, or two raw buffers'
            cand probe 'Run the instructions on a Vulkan device and judge every result by the D3D rules'
            cand generate 'Write shell completions or man pages (for packaging and the checked-in copies)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'d3dfloat;help;decode'= {
        }
        &'d3dfloat;help;encode'= {
        }
        &'d3dfloat;help;convert'= {
        }
        &'d3dfloat;help;op'= {
        }
        &'d3dfloat;help;ulp-diff'= {
        }
        &'d3dfloat;help;probe'= {
        }
        &'d3dfloat;help;generate'= {
        }
        &'d3dfloat;help;help'= {
        }
    ]
    $completions[$command]
}
