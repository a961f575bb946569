import { Tabs } from '@mantine/core';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { OrdersTab } from './OrdersTab';
import { ProductsTab } from './ProductsTab';

const TABS = [
  { value: 'products', label: 'Products' },
  { value: 'orders', label: 'Orders' },
] as const;

/** Store data: products (variants, tags) and orders (items, customer), filtered, with quick filters. */
export default function StorePage() {
  const location = useLocation();
  const navigate = useNavigate();
  const tab = TABS.find(({ value }) => location.pathname.startsWith(`/store/${value}`))?.value ?? 'products';
  return (
    <>
      <PageHeader
        title="Store data"
        description="Products and orders as the stores sent them; tags and notes are yours to edit."
      />
      <Tabs value={tab} onChange={(value) => value && void navigate(`/store/${value}`)} keepMounted={false}>
        <Tabs.List mb="md">
          {TABS.map(({ value, label }) => (
            <Tabs.Tab key={value} value={value}>
              {label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="products">
          <ProductsTab />
        </Tabs.Panel>
        <Tabs.Panel value="orders">
          <OrdersTab />
        </Tabs.Panel>
      </Tabs>
      <Routes>
        <Route path="products" element={null} />
        <Route path="orders" element={null} />
        <Route path="*" element={<Navigate to="/store/products" replace />} />
      </Routes>
    </>
  );
}
