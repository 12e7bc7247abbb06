/* A C client of libucmoh, built against the installed SDK only:
 *   score_programs PULLED_DIR PLUGINS_JSON AST_FILE   prints one score per line
 *   score_programs --expect-refusal PULLED_DIR PLUGINS_JSON
 *                                                     exits 0 if opening fails with a message
 * Also checks the API version and that a bad program gives an error, not scores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ucmoh/ucmoh.h>

static char* ReadAll(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)n + 1);
  *size = fread(text, 1, (size_t)n, f);
  text[*size] = '\0';
  fclose(f);
  return text;
}

static size_t CountLines(const char* text, size_t size) {
  size_t lines = 0;
  for (size_t i = 0; i < size; ++i) lines += text[i] == '\n';
  return lines;
}

static int ExpectRefusal(const char* dir, const char* plugins) {
  ucmoh_model* model = NULL;
  ucmoh_code code = ucmoh_open_pulled(dir, plugins, &model);
  if (code == UCMOH_OK || model != NULL || strlen(ucmoh_last_error()) == 0) {
    fprintf(stderr, "expected a refusal with a message, got code %d\n", (int)code);
    return 1;
  }
  printf("refused (%d): %s\n", (int)code, ucmoh_last_error());
  return 0;
}

int main(int argc, char** argv) {
  if (ucmoh_api_version() != UCMOH_API_VERSION) {
    fprintf(stderr, "libucmoh API %d, header %d\n", ucmoh_api_version(), UCMOH_API_VERSION);
    return 1;
  }
  if (argc == 4 && strcmp(argv[1], "--expect-refusal") == 0) return ExpectRefusal(argv[2], argv[3]);
  if (argc != 4) {
    fprintf(stderr, "usage: score_programs PULLED_DIR PLUGINS_JSON AST_FILE\n");
    return 2;
  }
  ucmoh_model* model = NULL;
  if (ucmoh_open_pulled(argv[1], argv[2], &model) != UCMOH_OK) {
    fprintf(stderr, "open: %s\n", ucmoh_last_error());
    return 1;
  }
  size_t size = 0, count = 0;
  char* programs = ReadAll(argv[3], &size);
  if (!programs) return 1;
  size_t capacity = CountLines(programs, size);
  float* scores = malloc(capacity * sizeof(float));
  if (ucmoh_score(model, UCMOH_FORMAT_AST, programs, size, scores, capacity, &count) != UCMOH_OK) {
    fprintf(stderr, "score: %s\n", ucmoh_last_error());
    return 1;
  }
  for (size_t i = 0; i < count; ++i) printf("%.9g\n", scores[i]);
  const char* bad = "{\"body\": []}";
  if (ucmoh_score(model, UCMOH_FORMAT_AST, bad, strlen(bad), scores, capacity, &count) != UCMOH_INVALID_ARGUMENT ||
      strstr(ucmoh_last_error(), "$.buffers: missing") == NULL) {
    fprintf(stderr, "a bad program was not refused as expected: %s\n", ucmoh_last_error());
    return 1;
  }
  ucmoh_close(model);
  free(scores);
  free(programs);
  return 0;
}
