/** The building blocks pages are made of (docs/dashboard.md#building-blocks). */
export { ApiErrorAlert, errorTitle, type ApiErrorAlertProps } from './ApiErrorAlert';
export { BulkActionBar, eachRow, tagActions, type BulkAction, type BulkOutcome } from './BulkActions';
export { ConfirmButton, ConfirmDialog, type ConfirmButtonProps, type ConfirmDialogProps } from './ConfirmDialog';
export { DetailDrawer, useDetailParam, type DetailDrawerProps } from './DetailDrawer';
export { FormActions, type FormActionsProps } from './FormActions';
export { applyApiErrors, fieldOf, FormError, type FormErrorProps, type FormLike } from './FormErrors';
export {
  buildFilter,
  FilterBuilder,
  filterErrorDetails,
  isFilterRefusal,
  parseFilter,
  type FilterBuilderProps,
  type FilterDocument,
  type FilterField,
  type FilterFieldType,
} from './FilterBuilder';
export { PageHeader } from './PageHeader';
export { ShownOnce, type ShownOnceProps } from './ShownOnce';
export { PagedTable, type Column, type Page, type PagedTableProps } from './PagedTable';
export {
  QuickFilterBar,
  quickFiltersKey,
  type ListSelection,
  type QuickFilter,
  type QuickFilterBarProps,
  type QuickFilterResource,
} from './QuickFilterBar';
export { ExportButton, type ExportResource, type ExportSelection } from './ExportButton';
export { MoneyInput, moneyText, moneyValue, type MoneyInputProps } from './MoneyInput';
export { DurationInput, type DurationInputProps } from './DurationInput';
export { ZoneCaption } from './ZoneCaption';
