/* Unit tests of the base layer: arena, memory, source map positions, the in-place
 * writer of source files. */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "arena.h"
#include "hash.h"
#include "namemap.h"
#include "path_glob.h"
#include "replace_file.h"
#include "sort.h"
#include "source.h"
#include "utf8.h"

START_TEST(arena_zeroed_and_aligned)
{
    Arena a;
    arena_init(&a);
    for (size_t size = 1; size < 5000; size += 37) {
        unsigned char *p = arena_alloc(&a, size);
        ck_assert_uint_eq((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < size; i++)
            ck_assert_uint_eq(p[i], 0);
        memset(p, 0xAB, size);
    }
    arena_free(&a);
}
END_TEST

START_TEST(arena_large_blocks_keep_small_ones_intact)
{
    Arena a;
    arena_init(&a);
    char *small = arena_strndup(&a, "hello", 5);
    char *big = arena_alloc(&a, 3u << 20);       /* larger than a chunk */
    big[0] = 'x';
    big[(3u << 20) - 1] = 'y';
    char *small2 = arena_strndup(&a, "world", 5);
    ck_assert_str_eq(small, "hello");
    ck_assert_str_eq(small2, "world");
    ck_assert_ptr_eq(small2, small + 16);         /* the current chunk is still used */
    ck_assert_uint_ge(a.total, 3u << 20);
    arena_free(&a);
}
END_TEST

START_TEST(arena_reset_reuses_the_newest_chunk)
{
    Arena a;
    arena_init(&a);
    for (int i = 0; i < 100000; i++)
        arena_alloc(&a, 40);                      /* several chunks */
    char *big = arena_alloc(&a, 3u << 20);        /* and a large block behind them */
    big[0] = 1;
    memset(arena_alloc(&a, 8), 0xAB, 8);
    size_t before = a.total;
    arena_reset(&a);
    size_t kept = a.total;
    ck_assert_uint_lt(kept, before);              /* older chunks were freed */
    unsigned char *again = arena_alloc(&a, 8);
    ck_assert_uint_eq(again[0], 0);               /* still zeroed */
    for (int round = 0; round < 50; round++) {   /* the same work costs no new chunk */
        arena_reset(&a);
        for (int i = 0; i < 1000; i++)
            arena_alloc(&a, 40);
        ck_assert_uint_eq(a.total, kept);
    }
    arena_free(&a);
    arena_reset(&a);                              /* an empty arena: nothing to do */
    ck_assert_ptr_null(a.chunk);
}
END_TEST

START_TEST(arena_rewind_keeps_what_came_before_and_reuses_the_rest)
{
    Arena a;
    arena_init(&a);
    char *before = arena_strndup(&a, "stdlib", 6);
    ArenaMark mark = arena_mark(&a);
    size_t total = 0;
    char *first = NULL;
    for (int round = 0; round < 20; round++) {
        char *p = arena_alloc(&a, 40);
        if (round == 0)
            first = p;
        ck_assert_ptr_eq(p, first);                /* the same memory, job after job */
        char *big = arena_alloc(&a, 3u << 20);     /* a large block behind the mark's chunk */
        big[0] = 1;
        for (int i = 0; i < 100000; i++)
            arena_alloc(&a, 40);                   /* several chunks after it */
        memset(arena_alloc(&a, 3u << 20), 0xAB, 16);   /* and a large block behind them */
        if (round == 1)
            total = a.total;
        if (round > 1)
            ck_assert_uint_eq(a.total, total);     /* no new chunk after the first two */
        arena_rewind(&a, mark);
        ck_assert_str_eq(before, "stdlib");
    }
    unsigned char *zeroed = arena_alloc(&a, 64);   /* reused memory is still zeroed */
    for (int i = 0; i < 64; i++)
        ck_assert_uint_eq(zeroed[i], 0);
    arena_free(&a);
    ck_assert_ptr_null(a.spare);
}
END_TEST

START_TEST(arena_rewind_to_an_empty_arena)
{
    Arena a;
    arena_init(&a);
    ArenaMark mark = arena_mark(&a);
    for (int round = 0; round < 3; round++) {
        arena_alloc(&a, 3u << 20);                 /* a large block first */
        for (int i = 0; i < 10000; i++)
            arena_alloc(&a, 40);
        arena_rewind(&a, mark);
        ck_assert_ptr_null(a.chunk);
    }
    arena_free(&a);
}
END_TEST

START_TEST(arena_large_block_first)
{
    Arena a;
    arena_init(&a);
    char *big = arena_alloc(&a, 1u << 20);
    big[(1u << 20) - 1] = 1;
    char *next = arena_alloc(&a, 8);
    ck_assert_ptr_nonnull(next);
    ck_assert(next < big || next >= big + (1u << 20));
    arena_free(&a);
}
END_TEST

START_TEST(arena_printf_formats)
{
    Arena a;
    arena_init(&a);
    ck_assert_str_eq(arena_printf(&a, "`%s` must be between %d and %d", "attempts", 1, 1000),
                     "`attempts` must be between 1 and 1000");
    arena_free(&a);
}
END_TEST

START_TEST(utf8_decoder)
{
    int32_t cp;
    const unsigned char *smile = (const unsigned char *)"\xF0\x9F\x98\x80";
    ck_assert_uint_eq(utf8_decode(smile, 4, &cp), 4);
    ck_assert_int_eq(cp, 0x1F600);
    ck_assert_uint_eq(utf8_decode(smile, 3, &cp), 1);
    ck_assert_int_eq(cp, -1);               /* never reads past the given length */
    ck_assert_uint_eq(utf8_decode((const unsigned char *)"\xC0\xAF", 2, &cp), 1);
    ck_assert_int_eq(cp, -1);               /* overlong */
    ck_assert_uint_eq(utf8_decode((const unsigned char *)"\xED\xA0\x80", 3, &cp), 1);
    ck_assert_int_eq(cp, -1);               /* surrogate */
    ck_assert_uint_eq(utf8_decode((const unsigned char *)"\xF4\x90\x80\x80", 4, &cp), 1);
    ck_assert_int_eq(cp, -1);               /* beyond U+10FFFF */
    /* NUL-terminated text: 0 for invalid, and the NUL stops the decoder */
    ck_assert_uint_eq(utf8_read((const unsigned char *)"\xC3\xA9", &cp), 2);
    ck_assert_int_eq(cp, 0xE9);
    ck_assert_uint_eq(utf8_read((const unsigned char *)"\xE2\x82", &cp), 0);
    ck_assert_uint_eq(utf8_read((const unsigned char *)"", &cp), 1);
    ck_assert_int_eq(cp, 0);
}
END_TEST

/* 100 distinct keys that live as long as the test. */
static const char *keys_of_interned(uint32_t i)
{
    static char keys[100][8];
    snprintf(keys[i], sizeof keys[i], "k%u", i);
    return keys[i];
}

static uint32_t test_hash(const char *text)
{
    uint32_t h = 0;
    while (*text)
        h = h * 31 + (uint8_t)*text++;
    return h & 0xF;   /* few distinct hashes: collisions must be resolved by the bytes */
}

START_TEST(namemap_text_keys)
{
    Arena a;
    arena_init(&a);
    NameMap map;
    namemap_init_text(&map, &a, 4);   /* grows past its first size */
    char keys[300][16];
    uint32_t value;
    for (uint32_t i = 0; i < 300; i++) {
        snprintf(keys[i], sizeof keys[i], "step_%u", i);
        namemap_put(&map, &a, keys[i], test_hash(keys[i]), i);
    }
    ck_assert_uint_eq(map.count, 300);
    for (uint32_t i = 0; i < 300; i++) {
        char copy[16];   /* another pointer, the same bytes */
        strcpy(copy, keys[i]);
        ck_assert(namemap_get(&map, copy, test_hash(copy), &value));
        ck_assert_uint_eq(value, i);
    }
    namemap_put(&map, &a, keys[7], test_hash(keys[7]), 1000);
    ck_assert(namemap_get(&map, keys[7], test_hash(keys[7]), &value));
    ck_assert_uint_eq(value, 1000);                                   /* put replaces */
    ck_assert(!namemap_add(&map, &a, keys[8], test_hash(keys[8]), 5));
    ck_assert(namemap_get(&map, keys[8], test_hash(keys[8]), &value));
    ck_assert_uint_eq(value, 8);                                      /* add keeps the first */
    ck_assert(!namemap_get(&map, "step_", test_hash("step_"), &value));   /* a prefix */
    ck_assert_uint_eq(map.count, 300);
    arena_free(&a);
}
END_TEST

START_TEST(namemap_interned_keys)
{
    Arena a;
    arena_init(&a);
    NameMap map = { 0 };   /* a zeroed map: interned keys, compared by pointer */
    uint32_t value;
    static const char first[] = "attempts", second[] = "attempts";
    ck_assert(!namemap_get(&map, first, 1, &value));                  /* empty, never inited */
    namemap_put(&map, &a, first, 1, 10);
    ck_assert(namemap_get(&map, first, 1, &value));
    ck_assert_uint_eq(value, 10);
    /* the same bytes at another address are another name, even with the same hash */
    ck_assert((const void *)first != (const void *)second);
    ck_assert(!namemap_get(&map, second, 1, &value));
    for (uint32_t i = 0; i < 100; i++)   /* grows, keeping the pointer rule */
        namemap_put(&map, &a, keys_of_interned(i), i % 4, i);
    ck_assert(namemap_get(&map, first, 1, &value));
    ck_assert_uint_eq(value, 10);
    ck_assert_uint_eq(map.count, 101);
    arena_free(&a);
}
END_TEST

static uint32_t add_text(SourceMap *map, const char *text)
{
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    memcpy(copy, text, len + 1);
    return source_map_add(map, "t.orbit", copy, (uint32_t)len, false);
}

START_TEST(source_lines)
{
    SourceMap map;
    source_map_init(&map);
    uint32_t f = add_text(&map, "ab\r\ncd\n\nlast");
    ck_assert_uint_eq(source_line_of(&map, f, 0), 0);
    ck_assert_uint_eq(source_line_of(&map, f, 3), 0);   /* the LF of CRLF */
    ck_assert_uint_eq(source_line_of(&map, f, 4), 1);
    ck_assert_uint_eq(source_line_of(&map, f, 7), 2);
    ck_assert_uint_eq(source_line_of(&map, f, 8), 3);
    ck_assert_uint_eq(source_line_of(&map, f, 12), 3);  /* end of file */
    ck_assert_uint_eq(source_line_start(&map, f, 3), 8);
    uint32_t len;
    const char *line = source_line_text(&map, f, 0, &len);
    ck_assert_uint_eq(len, 2);                          /* CR is not part of the text */
    ck_assert_int_eq(strncmp(line, "ab", 2), 0);
    line = source_line_text(&map, f, 2, &len);
    ck_assert_uint_eq(len, 0);
    line = source_line_text(&map, f, 3, &len);
    ck_assert_uint_eq(len, 4);
    source_map_free(&map);
}
END_TEST

/* The line table agrees with a byte-by-byte scan: newlines at every offset of the
 * blocks the scan takes at once, runs of them (a whole block of newlines makes the table
 * grow), and a tail shorter than a block. */
START_TEST(source_lines_match_a_plain_scan)
{
    enum { LEN = 1000 };
    char text[LEN + 1];
    for (uint32_t i = 0; i < LEN; i++)
        text[i] = i >= 300 && i < 500 ? '\n' : (i * 7919u) % 13 == 0 ? '\n' : 'x';
    text[LEN] = '\0';
    SourceMap map;
    source_map_init(&map);
    uint32_t f = add_text(&map, text);
    uint32_t line = 0;
    for (uint32_t i = 0; i <= LEN; i++) {
        ck_assert_uint_eq(source_line_of(&map, f, i), line);
        if (i < LEN && text[i] == '\n') {
            line++;
            ck_assert_uint_eq(source_line_start(&map, f, line), i + 1);
        }
    }
    source_map_free(&map);
}
END_TEST

/* The one rule of line ends (source.h): "\n", "\r\n" and a lone "\r" each end one line. */
START_TEST(source_eol_rule)
{
    const char *t = "a\nb\r\nc\rd\r";
    const char *end = t + strlen(t);
    ck_assert_uint_eq(source_eol_len(t, end), 0);
    ck_assert_uint_eq(source_eol_len(t + 1, end), 1);   /* \n */
    ck_assert_uint_eq(source_eol_len(t + 3, end), 2);   /* \r\n */
    ck_assert_uint_eq(source_eol_len(t + 4, end), 1);   /* the \n of it, alone */
    ck_assert_uint_eq(source_eol_len(t + 6, end), 1);   /* a lone \r */
    ck_assert_uint_eq(source_eol_len(t + 8, end), 1);   /* a \r last */
    ck_assert_uint_eq(source_eol_len(t + 3, t + 4), 1); /* the range ends inside \r\n */
    ck_assert_ptr_eq(source_find_eol(t + 2, end), t + 3);
    ck_assert_ptr_eq(source_find_eol(t + 5, end), t + 6);
    ck_assert_ptr_eq(source_find_eol(t + 9, end), end);
    uint32_t len = (uint32_t)strlen(t);
    ck_assert(source_starts_line(t, len, 0));
    ck_assert(source_starts_line(t, len, 2));
    ck_assert(!source_starts_line(t, len, 4));          /* between \r and \n */
    ck_assert(source_starts_line(t, len, 5));
    ck_assert(source_starts_line(t, len, 7));           /* after a lone \r */
    ck_assert(source_starts_line(t, len, 9));           /* the end, after \r */
    ck_assert_uint_eq(source_line_begin(t, len, 4), 2);
    ck_assert_uint_eq(source_line_begin(t, len, 7), 7);
    ck_assert_uint_eq(source_line_begin(t, len, 8), 7);
    ck_assert(source_is_eol('\r') && source_is_eol('\n') && !source_is_eol(' '));
}
END_TEST

START_TEST(source_lines_lone_cr)
{
    SourceMap map;
    source_map_init(&map);
    uint32_t f = add_text(&map, "ab\rcd\r\ne\n\rf");
    ck_assert_uint_eq(source_line_of(&map, f, 2), 0);   /* the lone CR */
    ck_assert_uint_eq(source_line_of(&map, f, 3), 1);
    ck_assert_uint_eq(source_line_of(&map, f, 6), 1);   /* the LF of CRLF */
    ck_assert_uint_eq(source_line_of(&map, f, 7), 2);
    ck_assert_uint_eq(source_line_of(&map, f, 9), 3);   /* LF then CR: two lines end */
    ck_assert_uint_eq(source_line_of(&map, f, 10), 4);
    uint32_t len;
    const char *line = source_line_text(&map, f, 0, &len);
    ck_assert_uint_eq(len, 2);
    ck_assert_int_eq(strncmp(line, "ab", 2), 0);
    line = source_line_text(&map, f, 1, &len);
    ck_assert_uint_eq(len, 2);
    ck_assert_int_eq(strncmp(line, "cd", 2), 0);
    source_line_text(&map, f, 3, &len);
    ck_assert_uint_eq(len, 0);
    line = source_line_text(&map, f, 4, &len);
    ck_assert_uint_eq(len, 1);
    source_map_free(&map);
}
END_TEST

/* As source_lines_match_a_plain_scan, with every kind of line end, "\r\n" split across
 * the blocks the scan takes at once, and a lone "\r" last in a block. */
START_TEST(source_lines_mixed_match_a_plain_scan)
{
    enum { LEN = 1000 };
    char text[LEN + 1];
    for (uint32_t i = 0; i < LEN; i++) {
        uint32_t h = (i * 7919u) % 17;
        text[i] = h == 0 ? '\n' : h == 1 || h == 2 ? '\r' : 'x';
    }
    text[63] = '\r', text[64] = '\n';     /* \r\n across a block boundary */
    text[127] = '\r', text[128] = 'x';     /* a lone \r last in a block */
    text[LEN] = '\0';
    SourceMap map;
    source_map_init(&map);
    uint32_t f = add_text(&map, text);
    uint32_t line = 0;
    for (uint32_t i = 0; i <= LEN; i++) {
        ck_assert_uint_eq(source_line_of(&map, f, i), line);
        uint32_t eol = i < LEN ? source_eol_len(text + i, text + LEN) : 0;
        if (eol == 2)
            ck_assert_uint_eq(source_line_of(&map, f, ++i), line);
        if (eol) {
            line++;
            ck_assert_uint_eq(source_line_start(&map, f, line), i + 1);
        }
    }
    source_map_free(&map);
}
END_TEST

START_TEST(source_empty_file)
{
    SourceMap map;
    source_map_init(&map);
    uint32_t f = add_text(&map, "");
    ck_assert_uint_eq(source_line_of(&map, f, 0), 0);
    uint32_t len = 99;
    source_line_text(&map, f, 0, &len);
    ck_assert_uint_eq(len, 0);
    source_map_free(&map);
}
END_TEST

START_TEST(source_positions_one_range_per_file)
{
    SourceMap map;
    source_map_init(&map);
    uint32_t a = add_text(&map, "abc");       /* positions 0..3 (3 is its end) */
    uint32_t b = add_text(&map, "");          /* 4 */
    uint32_t c = add_text(&map, "xy");        /* 5..7 */
    ck_assert_uint_eq(source_file(&map, a)->origin, 0);
    ck_assert_uint_eq(source_file(&map, b)->origin, 4);
    ck_assert_uint_eq(source_file(&map, c)->origin, 5);
    ck_assert_uint_eq(source_file_at(&map, 0), a);
    ck_assert_uint_eq(source_file_at(&map, 3), a);   /* the end of a file is its own */
    ck_assert_uint_eq(source_file_at(&map, 4), b);
    ck_assert_uint_eq(source_file_at(&map, 5), c);
    ck_assert_uint_eq(source_file_at(&map, 7), c);
    Span s = source_span(&map, c, 1, 2);
    ck_assert_uint_eq(s.start, 6);
    ck_assert_uint_eq(s.end, 7);
    ck_assert_uint_eq(source_room(&map), (uint64_t)SOURCE_MAX_TOTAL_SIZE - 8);
    source_map_free(&map);
}
END_TEST

START_TEST(span_join_covers_both)
{
    Span a = span_make(10, 20), b = span_make(5, 12);
    Span j = span_join(a, b);
    ck_assert_uint_eq(j.start, 5);
    ck_assert_uint_eq(j.end, 20);
}
END_TEST

/* --- replace_file: the in-place writer of fmt and fix --- */

static char replace_dir[64];
static char replace_path[128];

/* A fresh directory holding f.orbit with `text`; replace_path names the file. */
static void replace_setup(const char *text)
{
    snprintf(replace_dir, sizeof replace_dir, "/tmp/orbit-replace-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(replace_dir));
    snprintf(replace_path, sizeof replace_path, "%s/f.orbit", replace_dir);
    FILE *f = fopen(replace_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    static char text[256];
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static int entries(const char *dir)
{
    char command[160];
    snprintf(command, sizeof command, "test $(ls -A %s | wc -l) -eq 1", dir);
    return system(command) == 0 ? 1 : 0;
}

static void replace_teardown(void)
{
    char command[160];
    snprintf(command, sizeof command, "chmod -R u+w %s; rm -rf %s", replace_dir, replace_dir);
    ck_assert_int_eq(system(command), 0);
}

/* Reads the file as fmt does: its identity when read. */
static void read_identity(struct stat *as_read)
{
    ReplaceWhy why;
    int fd = replace_file_open(replace_path, as_read, &why);
    ck_assert_msg(fd >= 0, "%s", why.text);
    close(fd);
}

START_TEST(replace_file_replaces_and_keeps_the_identity)
{
    replace_setup("old text\n");
    ck_assert_int_eq(chmod(replace_path, 0600), 0);
    ck_assert_int_eq(setxattr(replace_path, "user.orbit", "v", 1, 0), 0);
    bool root = geteuid() == 0;
    if (root)
        ck_assert_int_eq(chown(replace_path, 1234, 5678), 0);
    struct stat as_read, after;
    read_identity(&as_read);
    ReplaceWhy why;
    ck_assert_msg(replace_file(replace_path, &as_read, "new\n", 4, &why), "%s", why.text);
    ck_assert_str_eq(read_text(replace_path), "new\n");
    ck_assert_int_eq(stat(replace_path, &after), 0);
    ck_assert(after.st_ino != as_read.st_ino);   /* a new file, renamed over it */
    ck_assert_uint_eq(after.st_mode & 07777, 0600);
    if (root) {
        ck_assert_uint_eq(after.st_uid, 1234);
        ck_assert_uint_eq(after.st_gid, 5678);
    }
    char value[8];
    ck_assert_int_eq(getxattr(replace_path, "user.orbit", value, sizeof value), 1);
    ck_assert(entries(replace_dir));   /* no temporary file left */
    replace_teardown();
}
END_TEST

/* The file changes between its read and the rewrite: it is left as it is. */
START_TEST(replace_file_leaves_a_file_changed_since_it_was_read)
{
    replace_setup("as read\n");
    struct stat as_read;
    read_identity(&as_read);
    FILE *f = fopen(replace_path, "a");   /* someone else appends a line */
    fputs("appended\n", f);
    fclose(f);
    ReplaceWhy why;
    ck_assert(!replace_file(replace_path, &as_read, "formatted\n", 10, &why));
    ck_assert(why.refused);
    ck_assert_str_eq(why.text, "it changed since it was read; it was left as it is (run the "
                               "command again)");
    ck_assert_str_eq(read_text(replace_path), "as read\nappended\n");
    ck_assert(entries(replace_dir));

    /* Replaced by another file of the same size (an editor's save): another inode. */
    read_identity(&as_read);
    char other[160];
    snprintf(other, sizeof other, "%s/g", replace_dir);
    f = fopen(other, "w");
    fputs("AS READ\nAPPENDED\n", f);
    fclose(f);
    ck_assert_int_eq(rename(other, replace_path), 0);
    ck_assert(!replace_file(replace_path, &as_read, "formatted\n", 10, &why));
    ck_assert_str_eq(read_text(replace_path), "AS READ\nAPPENDED\n");

    /* The same size, rewritten in place: the content tells (replace_file_unchanged). */
    ck_assert(!replace_file_unchanged(replace_path, "as read\nappended\n", 17, &as_read, &why));
    ck_assert(why.refused);
    ck_assert(replace_file_unchanged(replace_path, "AS READ\nAPPENDED\n", 17, &as_read, &why));
    ck_assert(!replace_file_unchanged(replace_path, "AS READ\n", 8, &as_read, &why));
    replace_teardown();
}
END_TEST

START_TEST(replace_file_refuses_read_only_files_and_directories)
{
    replace_setup("text\n");
    struct stat as_read;
    read_identity(&as_read);
    ck_assert_int_eq(chmod(replace_path, 0444), 0);
    read_identity(&as_read);
    ReplaceWhy why;
    ck_assert(!replace_file_allowed(replace_path, &as_read, &why));
    ck_assert(!replace_file(replace_path, &as_read, "x\n", 2, &why));
    ck_assert_str_eq(why.text, "the file is read-only (mode 0444)");
    ck_assert_str_eq(read_text(replace_path), "text\n");

    ck_assert_int_eq(chmod(replace_path, 0644), 0);
    ck_assert_int_eq(chmod(replace_dir, 0555), 0);
    read_identity(&as_read);
    ck_assert(!replace_file(replace_path, &as_read, "x\n", 2, &why));
    char expected[160];
    snprintf(expected, sizeof expected, "the directory `%s` is read-only (mode 0555)", replace_dir);
    ck_assert_str_eq(why.text, expected);
    ck_assert_str_eq(read_text(replace_path), "text\n");
    ck_assert_int_eq(chmod(replace_dir, 0700), 0);
    replace_teardown();
}
END_TEST

START_TEST(replace_file_writes_through_hard_links)
{
    replace_setup("linked text\n");
    char other[160];
    snprintf(other, sizeof other, "%s/g.orbit", replace_dir);
    ck_assert_int_eq(link(replace_path, other), 0);
    struct stat as_read, after;
    read_identity(&as_read);
    ReplaceWhy why;
    ck_assert_msg(replace_file(replace_path, &as_read, "short\n", 6, &why), "%s", why.text);
    ck_assert_str_eq(read_text(replace_path), "short\n");
    ck_assert_str_eq(read_text(other), "short\n");
    ck_assert_int_eq(stat(replace_path, &after), 0);
    ck_assert_uint_eq(after.st_ino, as_read.st_ino);
    ck_assert_uint_eq(after.st_nlink, 2);
    /* a change is seen there too */
    read_identity(&as_read);
    FILE *f = fopen(other, "a");
    fputs("more\n", f);
    fclose(f);
    ck_assert(!replace_file(replace_path, &as_read, "x\n", 2, &why));
    ck_assert_str_eq(read_text(other), "short\nmore\n");
    replace_teardown();
}
END_TEST

START_TEST(replace_file_refuses_a_fifo_without_blocking)
{
    replace_setup("");
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s/p.orbit", replace_dir);
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    ReplaceWhy why;
    struct stat as_read;
    ck_assert(!replace_file_kind_allowed(fifo, &why));
    ck_assert(why.refused);
    ck_assert_int_eq(replace_file_open(fifo, &as_read, &why), -1);   /* no writer: no wait */
    ck_assert(why.refused);
    ck_assert_str_eq(why.text, "it is a FIFO, not a regular file: only a regular file is "
                               "rewritten in place (give a stream as standard input, `-`)");
    ck_assert(replace_file_kind_allowed(replace_path, &why));
    ck_assert(replace_file_kind_allowed(replace_dir, &why));
    ck_assert_int_eq(replace_file_open("/nonexistent/f.orbit", &as_read, &why), -1);
    ck_assert(!why.refused);
    unlink(fifo);
    replace_teardown();
}
END_TEST

/* The published FNV-1a test vectors; a hash continued over two parts is the hash of both
 * (fingerprints hash a diagnostic part by part). */
START_TEST(hash_fnv1a_vectors)
{
    ck_assert_uint_eq(hash_fnv1a(HASH_FNV1A_START, "", 0), UINT64_C(0xcbf29ce484222325));
    ck_assert_uint_eq(hash_fnv1a(HASH_FNV1A_START, "a", 1), UINT64_C(0xaf63dc4c8601ec8c));
    ck_assert_uint_eq(hash_fnv1a(HASH_FNV1A_START, "foobar", 6), UINT64_C(0x85944171f73967e8));
    ck_assert_uint_eq(hash_fnv1a(hash_fnv1a(HASH_FNV1A_START, "foo", 3), "bar", 3),
                      UINT64_C(0x85944171f73967e8));
    /* bytes above 0x7f are unsigned: no sign extension into the hash */
    ck_assert_uint_eq(hash_fnv1a(HASH_FNV1A_START, "\xff", 1), UINT64_C(0xaf64724c8602eb6e));
}
END_TEST

/* Glob patterns over relative paths: segments by fnmatch, `**` any number of them. */
START_TEST(path_glob_segments_and_double_star)
{
    ck_assert(path_glob_match("a.orbit", "a.orbit"));
    ck_assert(!path_glob_match("a.orbit", "d/a.orbit"));
    ck_assert(path_glob_match("*.orbit", "x.orbit"));
    ck_assert(!path_glob_match("*.orbit", "d/x.orbit"));          /* `*` stays in a segment */
    ck_assert(path_glob_match("legacy/**", "legacy/a/b/c.orbit"));
    ck_assert(path_glob_match("legacy/**", "legacy"));            /* none included */
    ck_assert(path_glob_match("**/gen/*.orbit", "gen/x.orbit"));
    ck_assert(path_glob_match("**/gen/*.orbit", "a/b/gen/x.orbit"));
    ck_assert(!path_glob_match("**/gen/*.orbit", "a/gen/b/x.orbit"));
    ck_assert(path_glob_match("a/**/z", "a/z"));
    ck_assert(path_glob_match("a/**/z", "a/b/c/z"));
    ck_assert(path_glob_match("[a-c]?.orbit", "b1.orbit"));
    ck_assert(!path_glob_match("[!a-c]?.orbit", "b1.orbit"));
    ck_assert(path_glob_match("d//a.orbit/", "d/a.orbit"));      /* empty segments ignored */
    ck_assert(!path_glob_match("", "a"));
    ck_assert(path_glob_match("**", ""));
    /* many `**` over a deep path: bounded by segments x segments, not exponential */
    char pattern[4096] = "", path[4096] = "";
    for (int i = 0; i < 300; i++) {
        strcat(pattern, "**/");
        strcat(path, "d/");
    }
    strcat(pattern, "x");
    strcat(path, "y");
    ck_assert(!path_glob_match(pattern, path));
}
END_TEST

static int by_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The radix sort against qsort: negative, zero, extreme and repeated values, sizes from 0
 * up, and values that agree in every byte but one (the skipped digits). */
START_TEST(sort_int64_matches_qsort)
{
    enum { MAX = 5000 };
    int64_t *v = malloc(MAX * sizeof *v), *w = malloc(MAX * sizeof *w);
    uint64_t seed = 0x9E3779B97F4A7C15u;
    const size_t sizes[] = {0, 1, 2, 3, 255, 256, 257, 1000, MAX};
    for (int shape = 0; shape < 5; shape++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            size_t n = sizes[k];
            for (size_t i = 0; i < n; i++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                int64_t x = (int64_t)(seed >> 1);
                if (shape == 0)
                    v[i] = (int64_t)seed;                       /* any 64 bits */
                else if (shape == 1)
                    v[i] = x % 2000 - 1000;                     /* small, both signs */
                else if (shape == 2)
                    v[i] = (i % 3 == 0) ? INT64_MIN : (i % 3 == 1) ? INT64_MAX : 0;
                else if (shape == 3)
                    v[i] = 500 + 1000 * (int64_t)(x % 4);       /* few values, ms-like */
                else
                    v[i] = x % 200;          /* one byte differs: an odd number of passes */
            }
            memcpy(w, v, n * sizeof *v);
            sort_int64(v, n);
            if (n)
                qsort(w, n, sizeof *w, by_int64);
            ck_assert_msg(n == 0 || memcmp(v, w, n * sizeof *v) == 0, "shape %d, %zu values",
                          shape, n);
        }
    free(v);
    free(w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("base");
    TCase *tc = tcase_create("base");
    tcase_add_test(tc, arena_zeroed_and_aligned);
    tcase_add_test(tc, arena_large_blocks_keep_small_ones_intact);
    tcase_add_test(tc, arena_large_block_first);
    tcase_add_test(tc, arena_reset_reuses_the_newest_chunk);
    tcase_add_test(tc, arena_rewind_keeps_what_came_before_and_reuses_the_rest);
    tcase_add_test(tc, arena_rewind_to_an_empty_arena);
    tcase_add_test(tc, arena_printf_formats);
    tcase_add_test(tc, namemap_text_keys);
    tcase_add_test(tc, namemap_interned_keys);
    tcase_add_test(tc, utf8_decoder);
    tcase_add_test(tc, source_lines);
    tcase_add_test(tc, source_lines_match_a_plain_scan);
    tcase_add_test(tc, source_eol_rule);
    tcase_add_test(tc, source_lines_lone_cr);
    tcase_add_test(tc, source_lines_mixed_match_a_plain_scan);
    tcase_add_test(tc, source_empty_file);
    tcase_add_test(tc, source_positions_one_range_per_file);
    tcase_add_test(tc, span_join_covers_both);
    tcase_add_test(tc, replace_file_replaces_and_keeps_the_identity);
    tcase_add_test(tc, replace_file_leaves_a_file_changed_since_it_was_read);
    tcase_add_test(tc, replace_file_refuses_read_only_files_and_directories);
    tcase_add_test(tc, replace_file_writes_through_hard_links);
    tcase_add_test(tc, replace_file_refuses_a_fifo_without_blocking);
    tcase_add_test(tc, hash_fnv1a_vectors);
    tcase_add_test(tc, path_glob_segments_and_double_star);
    tcase_add_test(tc, sort_int64_matches_qsort);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
