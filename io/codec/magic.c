#include "io/codec/magic.h"

#include "io/codec/codec.h"

#include <string.h>

int magic_match(const magic_pattern *m, const unsigned char *p, size_t n)
{
    if (n < (size_t)m->off + m->len)
        return 0;
    for (size_t i = 0; i < m->len; i++) {
        unsigned mask = m->mask ? (unsigned char)m->mask[i] : 0xffu;
        if ((p[m->off + i] ^ (unsigned char)m->bytes[i]) & mask)
            return 0;
    }
    return 1;
}

int magic_prefix(const magic_pattern *m, const unsigned char *p, size_t n)
{
    if (n >= (size_t)m->off + m->len)
        return 0;
    for (size_t i = m->off; i < n; i++) {
        unsigned mask = m->mask ? (unsigned char)m->mask[i - m->off] : 0xffu;
        if ((p[i] ^ (unsigned char)m->bytes[i - m->off]) & mask)
            return 0;
    }
    return 1;
}

/* Each format with up to three patterns, any of which names it. Magics
 * are from each format's specification: gzip RFC 1952 2.3.1; zstd RFC
 * 8878 3.1.1 (and its skippable frames, 3.1.2); xz "The .xz File Format"
 * 2.1.1.1; bzip2 (Seward's bzip2 1.0 sources: "BZh", the level, then a
 * block's or the end's 48-bit magic); zip APPNOTE 4.3.7, 4.3.16, 8.5.3;
 * 7z, RAR, lz4 frame and legacy, lzip, lzop, compress, tar (POSIX ustar
 * at offset 257), Parquet ("PAR1" then a Thrift compact header, 0x15),
 * Arrow IPC file ("ARROW1" and two bytes of padding), Avro, OLE2, SQLite,
 * HDF5 and NumPy .npy from their published file format descriptions. The
 * checks past the bare magic (bzip2's block magic, Parquet's 0x15, the
 * padding bytes) keep a CSV whose header happens to begin "BZh9" or "PAR1"
 * plain text. */
typedef struct format_magic {
    magic_format fmt;
    magic_pattern pat[3];
} format_magic;

#define ARCHIVE "extract the CSV first: "
#define COLUMNAR "export it to CSV or raw binary first (DuckDB, pyarrow)"

static const format_magic formats[] = {
    {{"gzip", &codec_gzip_ops, NULL}, {{0, 2, "\x1f\x8b", NULL}}},
    {{"zstd", &codec_zstd_ops, NULL},
     {{0, 4, "\x28\xb5\x2f\xfd", NULL},
      {0, 4, "\x50\x2a\x4d\x18", "\xf0\xff\xff\xff"}}},
    {{"xz", &codec_xz_ops, NULL}, {{0, 6, "\xfd\x37\x7a\x58\x5a\x00", NULL}}},
    {{"bzip2", &codec_bz2_ops, NULL},
     {{0, 10, "BZh1\x31\x41\x59\x26\x53\x59",
       "\xff\xff\xff\xf0\xff\xff\xff"
       "\xff\xff\xff"},
      {0, 10, "BZh1\x17\x72\x45\x38\x50\x90",
       "\xff\xff\xff\xf0\xff\xff\xff"
       "\xff\xff\xff"}}},
    {{"zip archive", NULL,
      ARCHIVE "unzip -p FILE MEMBER | colstat (an .xlsx or .ods workbook is "
              "a zip archive: save the sheet as CSV)"},
     {{0, 4, "PK\x03\x04", NULL},
      {0, 4, "PK\x05\x06", NULL},
      {0, 4, "PK\x07\x08", NULL}}},
    {{"7z archive", NULL, ARCHIVE "7z e -so FILE MEMBER | colstat"},
     {{0, 6, "7z\xbc\xaf\x27\x1c", NULL}}},
    {{"RAR archive", NULL, ARCHIVE "unrar p -inul FILE MEMBER | colstat"},
     {{0, 6, "Rar!\x1a\x07", NULL}}},
    {{"tar archive", NULL, ARCHIVE "tar -xOf FILE MEMBER | colstat"},
     {{257, 5, "ustar", NULL}}},
    {{"lz4 data", NULL, "decompress it first: lz4 -dc FILE | colstat"},
     {{0, 4, "\x04\x22\x4d\x18", NULL}, {0, 4, "\x02\x21\x4c\x18", NULL}}},
    {{"lzip data", NULL, "decompress it first: lzip -dc FILE | colstat"},
     {{0, 5, "LZIP\x01", NULL}}},
    {{"lzop data", NULL, "decompress it first: lzop -dc FILE | colstat"},
     {{0, 9, "\x89LZO\x00\r\n\x1a\n", NULL}}},
    {{"compress (.Z) data", NULL,
      "decompress it first: gzip -dc FILE | colstat"},
     {{0, 3, "\x1f\x9d\x00", "\xff\xff\x60"}}},
    {{"Parquet file", NULL, COLUMNAR}, {{0, 5, "PAR1\x15", NULL}}},
    {{"Arrow IPC (Feather) file", NULL, COLUMNAR},
     {{0, 8, "ARROW1\x00\x00", NULL}}},
    {{"Avro file", NULL, COLUMNAR}, {{0, 4, "Obj\x01", NULL}}},
    {{"HDF5 file", NULL, COLUMNAR}, {{0, 8, "\x89HDF\r\n\x1a\n", NULL}}},
    {{"SQLite database", NULL,
      "export a table first: sqlite3 -csv -header FILE 'SELECT ...' | "
      "colstat"},
     {{0, 16, "SQLite format 3\x00", NULL}}},
    {{"OLE2 document (an Excel .xls workbook?)", NULL, "save the sheet as CSV"},
     {{0, 8, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", NULL}}},
    {{"NumPy .npy file", NULL,
      "its header is not data: write the array with ndarray.tofile() and "
      "read that with -b"},
     {{0, 6, "\x93NUMPY", NULL}}},
};

const magic_format *magic_identify(const unsigned char *p, size_t n)
{
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
        for (size_t k = 0; k < 3 && formats[f].pat[k].len; k++)
            if (magic_match(&formats[f].pat[k], p, n))
                return &formats[f].fmt;
    return NULL;
}

static int all_text(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 ? !strchr("\t\n\r", p[i]) || !p[i] : p[i] > 0x7e)
            return 0;
    return 1;
}

const magic_format *magic_cut(const unsigned char *p, size_t n)
{
    if (n == 0 || (n < 3 && all_text(p, n)))
        return NULL;
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
        for (size_t k = 0; k < 3 && formats[f].pat[k].len; k++)
            if (formats[f].fmt.codec && formats[f].pat[k].off == 0 &&
                magic_prefix(&formats[f].pat[k], p, n))
                return &formats[f].fmt;
    return NULL;
}
