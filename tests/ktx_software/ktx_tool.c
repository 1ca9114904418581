/*
 * A small driver of KTX-Software's libktx for tests/container_interop.rs: it writes KTX2
 * files through libktx's own writer and reads ours through libktx's own reader, so both
 * directions are checked by the reference implementation of KTX 2.0.
 *
 *   ktx_tool write VKFORMAT WIDTH HEIGHT LEVELS LAYERS FACES OUT.ktx2 < images
 *     Creates a 2D texture (an array when LAYERS > 1, a cube when FACES == 6) and fills
 *     it from stdin: for each layer, each face, each level from the largest down (a DDS
 *     file's order), the image's bytes as libktx sizes them.
 *   ktx_tool read IN.ktx2 > images
 *     Loads the file and writes its images to stdout in the same order, after a line
 *     "VKFORMAT WIDTH HEIGHT LEVELS LAYERS FACES\n".
 *
 * Exit status 0 on success, 1 with a message on stderr otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktx.h>

static int fail(const char *what, KTX_error_code rc) {
    fprintf(stderr, "ktx_tool: %s: %s\n", what, ktxErrorString(rc));
    return 1;
}

static unsigned long number(const char *s) { return strtoul(s, NULL, 10); }

static int write_texture(char **argv) {
    ktxTextureCreateInfo info;
    memset(&info, 0, sizeof info);
    info.vkFormat = (ktx_uint32_t)number(argv[0]);
    info.baseWidth = (ktx_uint32_t)number(argv[1]);
    info.baseHeight = (ktx_uint32_t)number(argv[2]);
    info.baseDepth = 1;
    info.numDimensions = 2;
    info.numLevels = (ktx_uint32_t)number(argv[3]);
    info.numLayers = (ktx_uint32_t)number(argv[4]);
    info.numFaces = (ktx_uint32_t)number(argv[5]);
    info.isArray = info.numLayers > 1;
    info.generateMipmaps = KTX_FALSE;

    ktxTexture2 *tex = NULL;
    KTX_error_code rc = ktxTexture2_Create(&info, KTX_TEXTURE_CREATE_ALLOC_STORAGE, &tex);
    if (rc != KTX_SUCCESS)
        return fail("ktxTexture2_Create", rc);
    ktxTexture *t = ktxTexture(tex);
    for (ktx_uint32_t layer = 0; layer < info.numLayers; layer++)
        for (ktx_uint32_t face = 0; face < info.numFaces; face++)
            for (ktx_uint32_t level = 0; level < info.numLevels; level++) {
                size_t size = ktxTexture_GetImageSize(t, level);
                unsigned char *image = malloc(size ? size : 1);
                if (!image || fread(image, 1, size, stdin) != size) {
                    fprintf(stderr, "ktx_tool: stdin ends before layer %u face %u level %u\n",
                            layer, face, level);
                    return 1;
                }
                rc = ktxTexture_SetImageFromMemory(t, level, layer, face, image, size);
                free(image);
                if (rc != KTX_SUCCESS)
                    return fail("ktxTexture_SetImageFromMemory", rc);
            }
    rc = ktxTexture_WriteToNamedFile(t, argv[6]);
    if (rc != KTX_SUCCESS)
        return fail("ktxTexture_WriteToNamedFile", rc);
    ktxTexture_Destroy(t);
    return 0;
}

static int read_texture(const char *path) {
    ktxTexture2 *tex = NULL;
    KTX_error_code rc =
        ktxTexture2_CreateFromNamedFile(path, KTX_TEXTURE_CREATE_LOAD_IMAGE_DATA_BIT, &tex);
    if (rc != KTX_SUCCESS)
        return fail(path, rc);
    ktxTexture *t = ktxTexture(tex);
    printf("%u %u %u %u %u %u\n", tex->vkFormat, t->baseWidth, t->baseHeight, t->numLevels,
           t->numLayers, t->numFaces);
    unsigned char *data = ktxTexture_GetData(t);
    for (ktx_uint32_t layer = 0; layer < t->numLayers; layer++)
        for (ktx_uint32_t face = 0; face < t->numFaces; face++)
            for (ktx_uint32_t level = 0; level < t->numLevels; level++) {
                ktx_size_t offset = 0;
                rc = ktxTexture_GetImageOffset(t, level, layer, face, &offset);
                if (rc != KTX_SUCCESS)
                    return fail("ktxTexture_GetImageOffset", rc);
                size_t size = ktxTexture_GetImageSize(t, level);
                if (fwrite(data + offset, 1, size, stdout) != size)
                    return fail("writing stdout", KTX_FILE_WRITE_ERROR);
            }
    ktxTexture_Destroy(t);
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 9 && strcmp(argv[1], "write") == 0)
        return write_texture(argv + 2);
    if (argc == 3 && strcmp(argv[1], "read") == 0)
        return read_texture(argv[2]);
    fprintf(stderr, "usage: ktx_tool write VKFORMAT W H LEVELS LAYERS FACES OUT.ktx2 < images\n"
                    "       ktx_tool read IN.ktx2 > images\n");
    return 2;
}
