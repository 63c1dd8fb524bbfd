/* url: *_URL or *_URL_FILE, read one way. See url.h. */
#include "url.h"

#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
#include "../base/util.h"

enum key_id endpoint_url_file_key(enum key_id file)
{
	switch (file) {
	case K_MODEL_FILE: return K_MODEL_URL_FILE;
	case K_MMPROJ_FILE: return K_MMPROJ_URL_FILE;
	case K_LORA_FILE: return K_LORA_URL_FILE;
	default: return K__COUNT;
	}
}

int endpoint_has_url(const struct endpoint *ep, enum key_id file)
{
	enum key_id u = key_url_of(file), uf = endpoint_url_file_key(file);
	const char *v = u < K__COUNT ? endpoint_value(ep, u) : NULL;
	const char *f = uf < K__COUNT ? endpoint_value(ep, uf) : NULL;
	return (v && *v) || (f && *f);
}

int endpoint_url(const struct endpoint *ep, enum key_id file, char **url, char **err)
{
	*url = NULL;
	enum key_id u = key_url_of(file), uf = endpoint_url_file_key(file);
	if (u >= K__COUNT)
		return 0;
	const char *v = endpoint_value(ep, u);
	char *path = endpoint_path(ep, uf);
	if (!path) {
		*url = v && *v ? xstrdup(v) : NULL;
		return 0;
	}
	const char *ukey = key_name(u), *fkey = key_name(uf);
	char *why = NULL, *text = NULL;
	int rc = 0;
	if (v && *v)
		rc = errorf(err, "%s and %s are both set: name the URL once", ukey, fkey);
	else if (!(text = read_file(path, 64u << 10, 0, NULL, NULL, &why)))
		rc = errorf(err, "%s: %s", fkey, why);
	if (text) {
		char *a = text + strspn(text, " \t");
		a[strcspn(a, "\r\n")] = '\0';
		for (size_t n = strlen(a); n && (a[n - 1] == ' ' || a[n - 1] == '\t'); n--)
			a[n - 1] = '\0';
		if (*a)
			*url = xstrdup(a);
		else
			rc = errorf(err, "%s: '%s' holds no URL on its first line", fkey, path);
		memset(text, 0, strlen(text)); /* it may hold a password */
	}
	free(text);
	free(why);
	free(path);
	return rc;
}
