# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_d3dfloat_global_optspecs
    string join \n plain json csv color= h/help V/version
end

function __fish_d3dfloat_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_d3dfloat_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_d3dfloat_using_subcommand
    set -l cmd (__fish_d3dfloat_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "decode" -d 'Bits to fields, class and exact value'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "encode" -d 'A value to bits, with explicit rounding'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "convert" -d 'Bulk-convert binary data: raw little-endian streams, DDS textures, EXR and HDR images'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "op" -d 'Evaluate a D3D shader instruction: every result a conforming GPU may return'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "ulp-diff" -d 'Distance in ULPs between two values, stdin pairs, or two raw buffers'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "probe" -d 'Run the instructions on a Vulkan device and judge every result by the D3D rules'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "generate" -d 'Write shell completions or man pages (for packaging and the checked-in copies)'
complete -c d3dfloat -n "__fish_d3dfloat_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand decode" -s f -l fmt -d 'Format of the patterns (or bc6h_uf16, bc6h_sf16: one BC6H block)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand decode" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand decode" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand decode" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand decode" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand decode" -s h -l help -d 'Print help'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand decode" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -s f -l fmt -d 'Target format' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -s r -l rounding -d 'Rounding direction' -r -f -a "rne\t'Round to nearest, ties to even; overflow to infinity (IEEE default)'
rtz\t'Round toward zero; overflow to the largest finite value (D3D conversion rule, 3.2.2)'
rtp\t'Round toward +infinity'
rtn\t'Round toward -infinity'"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -l saturate -d 'Keep finite values finite: overflow gives the largest finite value in every mode'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand encode" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l from -d 'Source format (needed for raw input; a container knows its own)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l to -d 'Target format (or bc6h_uf16, bc6h_sf16: BC6H blocks, from a container input)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l quality -d 'BC6H output: how hard the encoder looks (fast: 1 partition, the finest mode precision that fits; normal: 4 partitions, one precision finer too; slow: 12 partitions, more precisions, more refinement)' -r -f -a "fast\t'The best-fitting partition, the finest precision that fits, one refinement pass'
normal\t'The 4 best-fitting partitions, that precision and the next finer, two passes'
slow\t'The 12 best-fitting partitions, two precisions finer and one coarser, four passes'"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -s r -l rounding -d 'Rounding direction' -r -f -a "rne\t'Round to nearest, ties to even; overflow to infinity (IEEE default)'
rtz\t'Round toward zero; overflow to the largest finite value (D3D conversion rule, 3.2.2)'
rtp\t'Round toward +infinity'
rtn\t'Round toward -infinity'"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l channels -d 'Float channels per texel beside a packed format: 3 (RGB) or 4 (RGBA) [default: 3 raw, 4 DDS]; from a container\'s floats, the first N (1 to 4)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l compression -d 'Compression of an .exr output' -r -f -a "none\t'Stored as they are'
zip\t'zlib over blocks of 16 scan lines (lossless)'
piz\t'Wavelet and Huffman coding (lossless)'"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -s o -l output -d 'Output file, or - for stdout [default: stdout]' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l max-pixels -d 'Largest image an .hdr or .exr header may declare, in pixels (width x height)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l saturate -d 'Keep finite values finite: overflow gives the largest finite value in every mode'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l raw -d 'Write raw data whatever the output\'s name'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l no-progress -d 'Never show a progress bar'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand convert" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -s f -l fmt -d 'Working format: f32, f16 or f64 (the double instruction names imply f64)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l rules -d 'Rule set: d3d11 (Direct3D 11 and later) or d3d10 (1 ULP for 32-bit arithmetic)' -r -f -a "d3d11\t'Direct3D 11 and later: 0.5 ULP for 32-bit add, subtract and multiply (3.1.3.1)'
d3d10\t'Direct3D 10: 1 ULP for 32-bit arithmetic, multiply and divide included'"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l check -d 'Check a claimed result (bits or value): exit 0 if it conforms, 1 if not' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l asm -d 'A sequence of instructions in shader assembly (\'dp3 r0.x, v0.xyz, v0.xyz; rsq r0.x, r0.x\'): the interval each output component may take (with --input, --output)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l expr -d 'An HLSL expression (\'normalize(float3(1, 2, 3))\'), expanded into the sequences compilers emit: the interval each result component may take' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l input -d 'With --asm: an input register\'s values, v0=1,2,3 (values or bit patterns); with --expr: a variable\'s, NAME=1,2,3. Repeat for each' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l output -d 'With --asm: the register (and components) reported, r1 or r1.xy; the last destination written when absent' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l operands -d 'Judge raw operand buffers, one file per source operand (with --results); with --asm or --expr, REG=FILE (or NAME=FILE) per input, its components interleaved' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l results -d 'The results buffer that goes with --operands' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l violations -d 'With --operands: write every violating line as \'OP ARG... = RESULT  # index N\' to FILE (N: the line\'s element index in the buffers)' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l limit -d 'With --list: the most violating lines listed' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l report -d 'With --operands: also write the verdict as one self-contained HTML page, with a plot of the error against the input' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l list -d 'With --operands and --json or --csv: list each violating line\'s index and class (up to --limit)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand op" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -s f -l fmt -d 'Format of A and B (or of the buffers\' elements)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l max -d 'Exit 1 when |distance| exceeds N or a NaN is involved' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l abs-tol -d 'Exit 1 when an element is not within A of the expected value (with --rel-tol: within A + R x |expected|, numpy\'s isclose); counted beside --max' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l rel-tol -d 'Exit 1 when an element is not within R x |expected| of the expected value (plus --abs-tol), as numpy\'s isclose(actual, expected, rtol=R, atol=A)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l files -d 'Compare two raw little-endian buffers element by element' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l report -d 'With --files: also write the comparison as one self-contained HTML page (the histogram of distances, and a heat map per pixel with --width)' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l width -d 'With --files: the raw buffers are images W pixels wide (for the report\'s heat map, and the x and y of the elements named)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l channels -d 'With --width: elements per pixel (RGB from the first three; a packed word is one)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l no-flush -d 'Count f32 subnormals as values instead of as zero (D3D arithmetic flushes them)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l list -d 'With --files: list every element over --max or the tolerance (every difference without them), NaN involved included: index, channel, both patterns, the distance, and for images the pixel\'s x and y, before the summary'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -s h -l help -d 'Print help'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand ulp-diff" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l device -d 'Device: an index from --list-devices or part of its name [default: the first]' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l ops -d 'Instructions to probe, comma-separated [default: all]' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l count -d 'Input lines per instruction (f16tof32 takes all 65,536 halves from 4096 up)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l rules -d 'Rule set: d3d11 (Direct3D 11 and later) or d3d10' -r -f -a "d3d11\t'Direct3D 11 and later: 0.5 ULP for 32-bit add, subtract and multiply (3.1.3.1)'
d3d10\t'Direct3D 10: 1 ULP for 32-bit arithmetic, multiply and divide included'"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l emit-log -d 'Write every line as \'OP ARG... = RESULT\' to FILE, for `d3dfloat op --plain < FILE`' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l seed -d 'Seed of the generated inputs' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l first -d 'With --exhaustive: only the first N inputs of each sweep' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l range -d 'With --exhaustive: only inputs START to END (excluded) of each sweep, decimal or 0x hex; an input\'s index is its pattern (a << 16 | b for two f16 operands)' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l violations -d 'With --exhaustive: write each violating line as \'OP ARG... = RESULT  # index N\' to FILE (f16 instructions\' to FILE.f16), for `d3dfloat op --plain < FILE`' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l limit -d 'Violating lines written (--violations) or listed (--list) per instruction' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l report -d 'Also write the report as one self-contained HTML page, with a plot of each instruction\'s error against its input' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l via -d 'Path of each shader to the device, comma-separated: direct (SPIR-V written by d3dfloat), vkd3d-shader or dxbc-spirv (DXBC written by d3dfloat, translated by that translator); with several, every instruction runs through each and the report compares them' -r
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l translator-lib -d 'With --via vkd3d-shader: the vkd3d-shader library to load [default: libvkd3d-shader.so.1 from the system]' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l dump-dxbc -d 'Write each selected instruction\'s DXBC compute shader (sampled and exhaustive forms) into DIR as NAME.FORMAT[.indexed].dxbc, then exit; no device is needed' -r -F
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l list-devices -d 'List the Vulkan devices and exit'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l exhaustive -d 'Every input instead of samples: all 2^32 f32 patterns of each one-operand instruction, all 65,536 f16 ones, every pair of f16 operands (2^32)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l list -d 'With --exhaustive and --json or --csv: list each violating line\'s index and class (up to --limit per instruction)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand probe" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand generate" -l color -d 'When to colour the human output (auto: only on a terminal, and not with NO_COLOR)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand generate" -l plain -d 'Just the answer, one line per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand generate" -l json -d 'One JSON object per input, per line, with a "schema" field (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand generate" -l csv -d 'CSV: a header, then one row per input (stable, for scripts)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand generate" -s h -l help -d 'Print help'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand generate" -s V -l version -d 'Print version'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "decode" -d 'Bits to fields, class and exact value'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "encode" -d 'A value to bits, with explicit rounding'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "convert" -d 'Bulk-convert binary data: raw little-endian streams, DDS textures, EXR and HDR images'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "op" -d 'Evaluate a D3D shader instruction: every result a conforming GPU may return'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "ulp-diff" -d 'Distance in ULPs between two values, stdin pairs, or two raw buffers'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "probe" -d 'Run the instructions on a Vulkan device and judge every result by the D3D rules'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "generate" -d 'Write shell completions or man pages (for packaging and the checked-in copies)'
complete -c d3dfloat -n "__fish_d3dfloat_using_subcommand help; and not __fish_seen_subcommand_from decode encode convert op ulp-diff probe generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
