/* model_coef.h: written by bench/model-fit.py (not fitted yet). */
#define TC_MODEL_FIT_SOURCE "not fitted"
static const char *const tc_model_orders[] = { "wjaccard", NULL };
static const tc_model_row tc_model_rows[] = {
    { NULL, NULL, { 0 } }
};
